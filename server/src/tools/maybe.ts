/**
 * A value that is there now or later. The reads on every authenticated request are synchronous
 * on SQLite (a cached row) and asynchronous on PostgreSQL: chaining them through `andThen` keeps
 * the SQLite path free of a promise and a microtask per step, and callers simply `await` it.
 * (Not named `then`: a module exporting `then` is a thenable, and awaiting its import calls it.)
 */
export type Maybe<T> = T | Promise<T>;

/** `next(value)` now when the value is there, else once it is. */
export function andThen<T, R>(value: Maybe<T>, next: (value: T) => Maybe<R>): Maybe<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

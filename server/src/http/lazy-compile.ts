import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own schema compilers (Ajv for what requests send, fast-json-stringify for what they
 * answer), made to compile each route's schema on its first use instead of at start. Compiling
 * every route's schemas was most of the start's CPU (about 60 % of it, profiled) and their
 * generated code stayed in memory for routes an instance may never serve; a route now pays its
 * compilation once, on its first request (docs/decisions/0058).
 *
 * The functions are Fastify's, unchanged: a validator still reports its `errors` after a call, so
 * answers and messages are the same. A schema the compilers refuse fails its route's first request
 * instead of the start (the API tests send every route's requests).
 */
export function lazyCompilers(): CompilersFactory {
  const buildValidator = AjvCompiler() as unknown as Build<Validate>;
  const buildSerializer = SerializerSelector() as unknown as Build<Serialize>;
  const factory = {
    // The compilers themselves (an Ajv instance with its formats) are made on first use too.
    buildValidator: (externalSchemas: unknown, options: unknown) => {
      let compile: ((route: unknown) => Validate) | undefined;
      return (route: unknown) =>
        lazyValidator(() => (compile ??= buildValidator(externalSchemas, options))(route));
    },
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      let compile: ((route: unknown) => Serialize) | undefined;
      return (route: unknown) => {
        let serialize: Serialize | undefined;
        return (data: unknown) =>
          (serialize ??= (compile ??= buildSerializer(externalSchemas, options))(route))(data);
      };
    },
  };
  // Fastify's types describe Ajv's full function; it calls only the function and reads `errors`.
  return factory as unknown as CompilersFactory;
}

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
/** A compiler factory: (external schemas, options) → (a route's schema and place) → function. */
type Build<F> = (externalSchemas: unknown, options: unknown) => (route: unknown) => F;
type Serialize = (data: unknown) => string;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };

/** A validator compiled on its first call, with the compiled one's `errors` after each call. */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data) => {
    compiled ??= compile();
    const result = compiled(data);
    validate.errors = compiled.errors;
    return result;
  };
  validate.errors = null;
  return validate;
}

export function Spinner({ label }: { label: string }) {
  return (
    <div
      role="status"
      className="flex flex-col items-center gap-3 py-10 text-slate-700 dark:text-slate-300"
    >
      <span
        aria-hidden="true"
        className="size-8 animate-spin rounded-full border-4 border-slate-300 border-t-blue-700 motion-reduce:animate-none dark:border-slate-700 dark:border-t-blue-300"
      />
      <span>{label}</span>
    </div>
  );
}

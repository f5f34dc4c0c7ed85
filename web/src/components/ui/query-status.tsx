/**
 * What a card says while its data loads, and when it could not be loaded (an alert). Renders
 * nothing once the data is there: the card shows it, or its own words for "none".
 */
export function QueryStatus({
  query,
  loading,
  failed,
}: {
  query: { isPending: boolean; isError: boolean };
  loading: string;
  failed: string;
}) {
  if (query.isPending)
    return <p className="text-sm text-slate-700 dark:text-slate-300">{loading}</p>;
  if (query.isError) {
    return (
      <p role="alert" className="text-sm text-red-800 dark:text-red-200">
        {failed}
      </p>
    );
  }
  return null;
}

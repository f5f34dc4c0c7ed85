/** The shape of /changelog.json: an array of releases, newest first. */
import * as z from 'zod/mini';

const stringList = z.optional(z.array(z.string()));

export const changelogEntrySchema = z.object({
  version: z.string().check(z.minLength(1)),
  date: z.string(),
  title: z.string(),
  summary: z.string(),
  features: stringList,
  improvements: stringList,
  fixes: stringList,
});
export const changelogSchema = z.array(changelogEntrySchema);

export type ChangelogEntry = z.infer<typeof changelogEntrySchema>;

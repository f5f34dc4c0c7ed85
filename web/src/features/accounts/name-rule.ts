import { t } from '@lingui/core/macro';
import type { FieldProblem } from '../../lib/use-form-submit';

/**
 * A member's name, as the server takes it (docs/api.md, the record update): trimmed, in NFC, at
 * most 100 characters counted as code points (an emoji is one). Not in the first screen's forms
 * chunk: only sign-up and Settings ask for a name.
 */
export const MAX_NAME_LENGTH = 100;
/** What a name too long is told (a function: the text is read in the current language). */
export const nameTooLongMessage = () => t`The name can be at most ${MAX_NAME_LENGTH} characters.`;

export function checkName(name: string): FieldProblem<'name'> | null {
  return [...name.trim().normalize('NFC')].length > MAX_NAME_LENGTH
    ? { field: 'name', message: nameTooLongMessage() }
    : null;
}

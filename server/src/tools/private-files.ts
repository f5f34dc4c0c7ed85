import fs from 'node:fs';
import path from 'node:path';

/**
 * Files only the server's own user may read: the data directory (0700), the database and its
 * WAL files, backups and the signing-secret file (0600). Modes are set with chmod after creating,
 * so they do not depend on the process's umask.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) when it does not exist, and makes a directory it created
 * 0700. An existing directory keeps its mode: it may be shared (an operator's choice, or /tmp).
 */
export function ensurePrivateDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Makes an existing file 0600 (no-op when it does not exist or belongs to someone else). */
export function restrictFile(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}

/** Creates `file` empty and 0600 when it does not exist, and makes it 0600 when it does. */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  restrictFile(file);
}

/**
 * Writes `content` to `file` (0600) only when `file` does not exist yet, atomically: the content
 * goes to a temporary file first and is linked into place, so a concurrent reader never sees a
 * half-written file. Returns false when the file already existed.
 */
export function writePrivateFileOnce(file: string, content: string): boolean {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(temporary, content, { mode: PRIVATE_FILE_MODE });
  try {
    fs.chmodSync(temporary, PRIVATE_FILE_MODE);
    fs.linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

import { formatNumber } from '../../lib/i18n';
import { queryOptions } from '@tanstack/react-query';
import { ClientResponseError } from 'pocketbase';
import type { BackupFileInfo } from '../../../../contract/backups';
import { CONFIRM_IT_IS_YOU, NOT_CONFIRMED_MESSAGE } from '../../lib/api-error';
import { pb } from '../../lib/pb';
import { askToConfirm } from '../../lib/reauth';
import { adminKeys } from './api';

/**
 * The console's Backups screen: PocketBase's backups API (docs/api.md, "Backups"), operators
 * only. Deleting, uploading, downloading and restoring need a fresh session: the requests get the
 * "Confirm it's you" dialog by themselves (lib/pb.ts); a download is a browser navigation, so it
 * asks first (`backupDownloadUrl`). Each action is in the operator's security log.
 */

export type Backup = BackupFileInfo;

const keys = {
  backups: (viewer: string) => [...adminKeys.of(viewer), 'backups'] as const,
};
export const backupsKeys = keys;

export const backupsQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: keys.backups(viewer),
    queryFn: () => pb.send<Backup[]>('/api/backups', {}),
  });

const backupPath = (key: string) => `/api/backups/${encodeURIComponent(key)}`;

/** Makes a backup now; `name` '' lets the server name it (the app's name and the time). */
export async function createBackup(name: string): Promise<void> {
  await pb.send('/api/backups', { method: 'POST', body: { name } });
}

/** Adds a backup from a ZIP archive; it keeps its file name. */
export async function uploadBackup(file: File): Promise<void> {
  const body = new FormData();
  body.append('file', file);
  await pb.send('/api/backups/upload', { method: 'POST', body });
}

export async function deleteBackup(key: string): Promise<void> {
  await pb.send(backupPath(key), { method: 'DELETE' });
}

/**
 * Replaces all data with the backup's. When it answers, every session has ended, this one too.
 */
export async function restoreBackup(key: string): Promise<void> {
  await pb.send(`${backupPath(key)}/restore`, { method: 'POST' });
}

/**
 * The backup's download address, with a file token (good for 3 minutes) that stands for this
 * operator. The server wants a fresh session behind it: when this one is not, "Confirm it's you"
 * asks first (Cancel rejects as any unconfirmed action does).
 */
export async function backupDownloadUrl(key: string): Promise<string> {
  const status = await pb.send<{ fresh?: boolean }>('/api/gatehouse/reauth', {});
  if (status.fresh !== true) {
    const asked = askToConfirm();
    const confirmed = asked ? await asked : false;
    if (!confirmed) {
      throw new ClientResponseError({
        status: 403,
        isAbort: asked !== null,
        response: {
          status: 403,
          message: asked ? NOT_CONFIRMED_MESSAGE : CONFIRM_IT_IS_YOU,
          data: {},
        },
      });
    }
  }
  const token = await pb.files.getToken();
  return pb.backups.getDownloadURL(token, key);
}

/** Starts the browser's download of `url` (the server answers it as an attachment). */
export function startDownload(url: string, name: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}

/** "812 bytes", "48 KB", "1.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = value < 10 ? 1 : 0;
  return `${formatNumber(value, { maximumFractionDigits: digits })} ${units[unit]}`;
}

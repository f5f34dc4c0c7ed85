import fs from 'node:fs';
import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as C from '../../../contract/backups.js';
import { recordEvent, type SecurityEventType } from '../core/audit.js';
import type { AppContext } from '../core/context.js';
import {
  fieldError,
  type FieldErrors,
  ForbiddenError,
  NotFoundError,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import { assertFresh } from '../core/reauth.js';
import { findAuthByToken, isOperator } from '../core/users.js';
import { BackupError, RestoreError } from '../db/backups.js';
import { requireSuperuser } from '../http/auth.js';
import { clientOf } from '../http/client.js';
import { HttpError } from '../http/envelope.js';
import { multipartForms, uploadedFiles } from '../http/multipart.js';
import { ensurePrivateDir } from '../tools/private-files.js';
import { looksLikeZip } from '../tools/zip.js';
import {
  activeBackup,
  BackupBusyError,
  backupPath,
  backupsDir,
  createBackup,
  generatedName,
  isPlainName,
  listBackups,
  NAME_RULE,
  NotRestorableError,
  restoreBackup,
} from './store.js';

/**
 * PocketBase's backups API (backups/store.ts keeps them; docs/decisions/0054): operators list and
 * make backups; deleting, uploading, downloading and restoring one also need a fresh session, as
 * the console's other actions that could hand everything over (docs/decisions/0046). A download
 * is a browser navigation: a file token in its URL stands for the operator. Each action but the
 * list is in the acting operator's security log, with the backup's name.
 */

const NOT_ALLOWED = 'Insufficient permissions to access the resource.';

export function backupRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    ensurePrivateDir(backupsDir(ctx));

    api.get('/api/backups', { schema: C.listBackups }, async (request) => {
      await requireSuperuser(ctx, request);
      return listBackups(ctx);
    });

    api.post('/api/backups', { schema: C.createBackup }, async (request, reply) => {
      const { user } = await requireSuperuser(ctx, request);
      if (activeBackup() !== undefined) throw new HttpError(400, BUSY_CREATE);
      const { name } = request.body;
      if (name) {
        const error =
          name.length > 150
            ? fieldError.lengthOutOfRange(1, 150)
            : !NAME_RULE.test(name)
              ? { code: 'validation_match_invalid', message: 'Must be in a valid format.' }
              : backupPath(ctx, name)
                ? {
                    code: 'validation_backup_name_exists',
                    message: 'The backup file name is invalid or already exists.',
                  }
                : undefined;
        if (error) throw new ValidationError(VALIDATION_FAILED, { name: error });
      }
      const key = name || generatedName(ctx, 'pb_backup_');
      try {
        await createBackup(ctx, key);
      } catch (error) {
        if (error instanceof BackupBusyError) throw new HttpError(400, BUSY_CREATE);
        if (error instanceof BackupError) {
          request.log.error({ err: error }, 'backup failed');
          throw new HttpError(400, 'Failed to create backup.');
        }
        throw error;
      }
      await logged(request, 'admin_backup_created', user.id, key);
      return reply.code(204).send(null);
    });

    // The one route here that takes multipart/form-data, in a plugin of its own; the archive is
    // written to the backups folder as it arrives (no size limit but the disk, as PocketBase).
    app.register(async (forms) => {
      await multipartForms(forms, {
        fileLimit: Infinity,
        bodyLimit: Infinity,
        fileDir: backupsDir(ctx),
      });
      forms
        .withTypeProvider<TypeBoxTypeProvider>()
        .post('/api/backups/upload', { schema: C.uploadBackup }, async (request, reply) => {
          const { user } = assertFresh(ctx, await requireSuperuser(ctx, request));
          const file = uploadedFiles(request).file;
          const errors: FieldErrors = {};
          const name = file ? path.basename(file.filename) : '';
          if (!file?.path) errors.file = fieldError.required();
          else if (!looksLikeZip(file.path)) {
            errors.file = {
              code: 'validation_invalid_mime_type',
              message: `${JSON.stringify(name)} mime type must be one of: application/zip.`,
            };
          } else if (!isPlainName(name)) {
            errors.file = { code: 'validation_invalid_file_name', message: 'Invalid file name.' };
          } else if (backupPath(ctx, name)) {
            errors.file = {
              code: 'validation_backup_name_exists',
              message: 'Backup file with the specified name already exists.',
            };
          }
          if (Object.keys(errors).length > 0) throw new ValidationError(VALIDATION_FAILED, errors);
          fs.renameSync(file!.path!, path.join(backupsDir(ctx), name));
          await logged(request, 'admin_backup_uploaded', user.id, name);
          return reply.code(204).send(null);
        });
    });

    api.get('/api/backups/:key', { schema: C.downloadBackup }, async (request, reply) => {
      const auth = await findAuthByToken(ctx, request.query.token ?? '', 'file');
      if (!auth || !isOperator(auth.user)) throw new ForbiddenError(NOT_ALLOWED);
      assertFresh(ctx, auth);
      const { key } = request.params;
      const file = backupPath(ctx, key);
      if (!file) throw new NotFoundError();
      await logged(request, 'admin_backup_downloaded', auth.user.id, key);
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename=${JSON.stringify(key)}`)
        .header('content-length', String(fs.statSync(file).size))
        .send(fs.createReadStream(file));
    });

    api.delete('/api/backups/:key', { schema: C.deleteBackup }, async (request, reply) => {
      const { user } = assertFresh(ctx, await requireSuperuser(ctx, request));
      const { key } = request.params;
      if (key === activeBackup()) {
        throw new HttpError(400, 'The backup is currently being used and cannot be deleted.');
      }
      const file = backupPath(ctx, key);
      if (!file) throw new HttpError(400, 'Invalid or already deleted backup file.');
      fs.rmSync(file);
      await logged(request, 'admin_backup_deleted', user.id, key);
      return reply.code(204).send(null);
    });

    api.post('/api/backups/:key/restore', { schema: C.restoreBackup }, async (request, reply) => {
      const auth = assertFresh(ctx, await requireSuperuser(ctx, request));
      if (activeBackup() !== undefined) throw new HttpError(400, BUSY_RESTORE);
      const { key } = request.params;
      const file = backupPath(ctx, key);
      if (!file) throw new HttpError(400, 'Missing or invalid backup file.');
      try {
        const keptAt = await restoreBackup(ctx, key, file);
        request.log.warn(
          { key, keptAt, by: auth.user.id },
          'database restored from a backup; every session has ended',
        );
      } catch (error) {
        if (error instanceof BackupBusyError) throw new HttpError(400, BUSY_RESTORE);
        if (error instanceof NotRestorableError || error instanceof RestoreError) {
          throw new ValidationError(RESTORE_FAILED, {
            key: { code: 'validation_invalid_backup', message: error.message },
          });
        }
        throw error;
      }
      // Written to the restored database: the log there was is the backup's now.
      await logged(request, 'admin_backup_restored', auth.user.id, key);
      return reply.code(204).send(null);
    });
  };

  /** Records a backup action of `operator` in their security log. */
  async function logged(
    request: FastifyRequest,
    type: SecurityEventType,
    operator: string,
    backup: string,
  ) {
    await recordEvent(ctx.db, {
      type,
      userId: operator,
      client: clientOf(request),
      detail: { actor: operator, backup },
    });
  }
}

/** PocketBase's answers while another backup or restore runs (with and without a full stop). */
const BUSY_CREATE = 'Try again later - another backup/restore process has already been started';
const BUSY_RESTORE = `${BUSY_CREATE}.`;

/** The answer when the archive cannot be restored; the field error says why. */
const RESTORE_FAILED = 'Failed to restore the backup.';

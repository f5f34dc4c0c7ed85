import { t } from '@lingui/core/macro';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Dialog } from '../../components/dialog';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { QueryStatus } from '../../components/ui/query-status';
import { ScreenHeader, usePageTitle } from '../../components/ui/screen';
import { useFieldSubmit } from '../../lib/use-field-submit';
import { useAuth, useCurrentUser } from '../../lib/auth';
import { formatDateTime } from '../../lib/dates';
import { adminErrorMessage } from './api';
import {
  backupDownloadUrl,
  backupsKeys,
  backupsQueryOptions,
  createBackup,
  deleteBackup,
  formatSize,
  restoreBackup,
  startDownload,
  uploadBackup,
  type Backup,
} from './backups-api';
import { ConfirmAction } from './confirm-action';
import { settingsQueryOptions } from './settings-api';
import { SettingsSectionCard } from './settings-section-card';
import { BACKUP_SCHEDULE } from './settings-sections';

type Asking = { kind: 'delete' | 'restore'; backup: Backup } | null;

/**
 * Admin → Backups: every backup (name, size, date) with Download, Restore and Delete; Create a
 * Backup (an optional name), Upload a Backup (a .zip), and the schedule (the settings' fields).
 * Delete asks first, naming the file; Restore asks the operator to type the backup's name, says
 * what is lost, and ends with everyone signed out, the operator on the sign-in screen.
 */
export function BackupsScreen() {
  usePageTitle(t`Backups`);
  const viewer = useCurrentUser()?.id ?? '';
  const queryClient = useQueryClient();
  const backups = useQuery(backupsQueryOptions(viewer));
  const settings = useQuery(settingsQueryOptions(viewer));
  const [asking, setAsking] = useState<Asking>(null);
  const [running, setRunning] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: backupsKeys.backups(viewer) });

  async function onDownload(backup: Backup) {
    if (running) return;
    setRunning(`download:${backup.key}`);
    setNotice(null);
    setError(null);
    try {
      startDownload(await backupDownloadUrl(backup.key), backup.key);
      setNotice(t`Downloading ${backup.key}.`);
    } catch (err) {
      setError(adminErrorMessage(err, t`Failed to download the backup. Please try again.`));
    } finally {
      setRunning(null);
    }
  }

  async function onDelete(backup: Backup) {
    setRunning(`delete:${backup.key}`);
    setNotice(null);
    setError(null);
    try {
      await deleteBackup(backup.key);
      setNotice(t`Backup ${backup.key} has been deleted.`);
    } catch (err) {
      setError(adminErrorMessage(err, t`Failed to delete the backup. Please try again.`));
    }
    setAsking(null);
    setRunning(null);
    await refresh();
  }

  return (
    <>
      <ScreenHeader
        title={t`Backups`}
        description={t`Copies of all the data, kept on the server. Keep a downloaded copy somewhere else too.`}
      />
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>

      <CreateBackupCard
        onCreated={async (name) => {
          setNotice(name ? t`Backup ${name} created.` : t`Backup created.`);
          setError(null);
          await refresh();
        }}
      />

      <TitledCard title={t`All Backups`} description={t`Newest first.`}>
        <QueryStatus
          query={backups}
          loading={t`Loading backups...`}
          failed={t`We couldn't load the backups. ${adminErrorMessage(backups.error, t`Please try again later.`)}`}
        />
        {backups.isSuccess && backups.data.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">
            {t`No backups yet. Create one, or upload one.`}
          </p>
        ) : null}
        {backups.isSuccess && backups.data.length > 0 ? (
          <ul className="flex flex-col gap-2" aria-label={t`Backups`}>
            {backups.data.map((backup) => (
              <BackupRow
                key={backup.key}
                backup={backup}
                disabled={running !== null}
                downloading={running === `download:${backup.key}`}
                onDownload={() => void onDownload(backup)}
                onRestore={() => setAsking({ kind: 'restore', backup })}
                onDelete={() => setAsking({ kind: 'delete', backup })}
              />
            ))}
          </ul>
        ) : null}
      </TitledCard>

      <UploadBackupCard
        onUploaded={async (name) => {
          setNotice(t`Backup ${name} uploaded.`);
          setError(null);
          await refresh();
        }}
      />

      {settings.isSuccess ? (
        <SettingsSectionCard spec={BACKUP_SCHEDULE()} settings={settings.data} />
      ) : (
        <Card>
          <QueryStatus
            query={settings}
            loading={t`Loading the schedule...`}
            failed={t`We couldn't load the schedule. ${adminErrorMessage(settings.error, t`Please try again later.`)}`}
          />
        </Card>
      )}

      {asking?.kind === 'delete' ? (
        <ConfirmAction
          question={{
            title: t`Delete ${asking.backup.key}?`,
            description: t`The backup file is removed from the server. This cannot be undone; other backups stay.`,
            confirm: t`Yes, Delete`,
            busy: t`Deleting...`,
          }}
          running={running !== null}
          onCancel={() => setAsking(null)}
          onConfirm={() => void onDelete(asking.backup)}
        />
      ) : null}
      {asking?.kind === 'restore' ? (
        <RestoreDialog backup={asking.backup} onCancel={() => setAsking(null)} />
      ) : null}
    </>
  );
}

function BackupRow({
  backup,
  disabled,
  downloading,
  onDownload,
  onRestore,
  onDelete,
}: {
  backup: Backup;
  disabled: boolean;
  downloading: boolean;
  onDownload: () => void;
  onRestore: () => void;
  onDelete: () => void;
}) {
  const nameId = useId();
  return (
    <li className="flex flex-col gap-2 rounded-md border border-slate-200 px-3 py-3 dark:border-slate-700">
      <span id={nameId} className="font-semibold wrap-anywhere">
        {backup.key}
      </span>
      <span className="text-sm text-slate-700 dark:text-slate-300">
        {formatSize(backup.size)} · {formatDateTime(backup.modified)}
      </span>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Button
          variant="secondary"
          aria-describedby={nameId}
          disabled={disabled}
          onClick={onDownload}
        >
          {downloading ? t`Preparing...` : t`Download`}
        </Button>
        <Button
          variant="secondary"
          aria-describedby={nameId}
          disabled={disabled}
          onClick={onRestore}
        >
          {t`Restore`}
        </Button>
        <Button
          variant="secondary"
          aria-describedby={nameId}
          disabled={disabled}
          onClick={onDelete}
        >
          {t`Delete`}
        </Button>
      </div>
    </li>
  );
}

function CreateBackupCard({ onCreated }: { onCreated: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const { onSubmit, busy, problem, failure } = useFieldSubmit({
    field: 'name',
    input,
    submit: async () => {
      const wanted = name.trim();
      await createBackup(wanted);
      setName('');
      await onCreated(wanted);
    },
    failure: (err) => adminErrorMessage(err, t`Failed to create the backup. Please try again.`),
  });

  return (
    <TitledCard
      title={t`Create a Backup`}
      description={t`A copy of all the data as it is now. It may take a moment on a large community.`}
    >
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <LiveMessage tone="error">{failure}</LiveMessage>
        <Field
          ref={input}
          label={t`Name (optional)`}
          hint={t`Lower-case letters, digits, _ and -, ending in .zip. Empty: the app's name and the time.`}
          autoComplete="off"
          spellCheck={false}
          value={name}
          error={problem}
          onChange={(e) => setName(e.target.value)}
        />
        <div>
          <Button type="submit" className="w-full sm:w-auto sm:min-w-44" disabled={busy}>
            {busy ? t`Creating...` : t`Create Backup`}
          </Button>
        </div>
      </form>
    </TitledCard>
  );
}

function UploadBackupCard({ onUploaded }: { onUploaded: (name: string) => Promise<void> }) {
  // A new key empties the file field after an upload.
  const [round, setRound] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const { onSubmit, busy, problem, failure } = useFieldSubmit({
    field: 'file',
    input,
    check: () => (input.current?.files?.[0] ? null : t`Choose a backup file (.zip) first.`),
    submit: async () => {
      const file = input.current!.files![0]!;
      await uploadBackup(file);
      setRound((n) => n + 1);
      await onUploaded(file.name);
    },
    failure: (err) => adminErrorMessage(err, t`Failed to upload the backup. Please try again.`),
  });

  return (
    <TitledCard
      title={t`Upload a Backup`}
      description={t`A .zip made by this app's backups (here or on another server). It keeps its file name, which must not be taken.`}
    >
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <LiveMessage tone="error">{failure}</LiveMessage>
        <Field
          key={round}
          ref={input}
          label={t`Backup file`}
          type="file"
          accept=".zip,application/zip"
          error={problem}
          className="file:mr-3 file:rounded file:border-0 file:bg-slate-200 file:px-3 file:py-1 file:text-sm file:font-semibold dark:file:bg-slate-700 dark:file:text-slate-100"
        />
        <div>
          <Button
            type="submit"
            variant="secondary"
            className="w-full sm:w-auto sm:min-w-44"
            disabled={busy}
          >
            {busy ? t`Uploading...` : t`Upload Backup`}
          </Button>
        </div>
      </form>
    </TitledCard>
  );
}

/**
 * Restore, confirmed by typing the backup's name: what is lost and that everyone is signed out
 * are said first. Once restored, this session has ended too: the operator is signed out here and
 * lands on the sign-in screen, which says why.
 */
function RestoreDialog({ backup, onCancel }: { backup: Backup; onCancel: () => void }) {
  const auth = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    input.current?.focus();
  }, []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (running) return;
    setFailure(null);
    if (typed.trim() !== backup.key) {
      setProblem(t`Type the backup's name exactly: ${backup.key}`);
      input.current?.focus();
      return;
    }
    setProblem(null);
    setRunning(true);
    try {
      await restoreBackup(backup.key);
    } catch (err) {
      setFailure(adminErrorMessage(err, t`Failed to restore the backup. Please try again.`));
      setRunning(false);
      return;
    }
    // Every session has ended on the server, this one too.
    await auth.signOut();
    await navigate({ to: '/', state: { notice: 'restored' } });
    queryClient.clear();
  }

  return (
    <Dialog
      title={t`Restore ${backup.key}?`}
      description={t`All the data is replaced with this backup's, made ${formatDateTime(backup.modified)}. Everything added or changed since then is lost. Everyone is signed out, you too, and signs in again.`}
      className="wrap-anywhere"
      onCancel={() => {
        if (!running) onCancel();
      }}
    >
      <form
        noValidate
        onSubmit={onSubmit}
        aria-label={t`Restore the backup`}
        className="flex flex-col gap-4"
      >
        <LiveMessage tone="error">{failure}</LiveMessage>
        <Field
          ref={input}
          label={t`Type ${backup.key} to confirm`}
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="none"
          value={typed}
          error={problem}
          readOnly={running}
          onChange={(e) => setTyped(e.target.value)}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" disabled={running} onClick={onCancel}>
            {t`Cancel`}
          </Button>
          <Button type="submit" variant="danger" className="sm:min-w-32" disabled={running}>
            {running ? t`Restoring...` : t`Yes, Restore`}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

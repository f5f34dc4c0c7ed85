import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { formatDateTime } from '../../lib/dates';
import type { UserRecord } from '../../lib/session';
import { useFormSubmit } from '../../lib/use-form-submit';
import {
  addPasskeyProblem,
  defaultPasskeyName,
  MAX_PASSKEY_NAME,
  removePasskeyErrorMessage,
  renamePasskeyErrorMessage,
  useAddPasskey,
  usePasskeys,
  useRemovePasskey,
  useRenamePasskey,
  type Passkey,
} from './api';
import { QueryStatus } from '../../components/ui/query-status';

type Message = { tone: 'info' | 'success' | 'error'; text: string } | null;

/** What a row shows: the passkey, its rename form, or the question before removing it. */
type RowMode = { id: string; kind: 'rename' | 'remove' } | null;

/**
 * Settings → Passkeys: the member's passkeys (name, added, last used), each with Rename and Remove,
 * and Add a Passkey (the browser's own prompt; the new passkey is named after this browser and
 * system, which Rename changes).
 */
export function PasskeysSection({ user }: { user: UserRecord }) {
  const passkeys = usePasskeys(user.id);
  const add = useAddPasskey(user.id);
  // Here, not in the row: the row is gone (the list was asked again) before the answer is told.
  const remove = useRemovePasskey(user.id);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [mode, setMode] = useState<RowMode>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const supported = typeof window.PublicKeyCredential === 'function';

  function onAdd() {
    if (add.isPending) return;
    setMessage(null);
    setMode(null);
    add.mutate(defaultPasskeyName(), {
      onSuccess: (passkey) =>
        setMessage({
          tone: 'success',
          text: t`Passkey added as "${passkey.name}". You can now sign in with it.`,
        }),
      onError: (err) => setMessage(addPasskeyProblem(err)),
    });
  }

  return (
    <TitledCard
      title={t`Passkeys`}
      description={t`Sign in with your fingerprint, face, screen lock or a security key instead of your password. A passkey is all you need: no code is asked.`}
    >
      <LiveMessage tone="success">{message?.tone === 'success' ? message.text : null}</LiveMessage>
      <LiveMessage tone="info">{message?.tone === 'info' ? message.text : null}</LiveMessage>
      <LiveMessage tone="error">{message?.tone === 'error' ? message.text : null}</LiveMessage>
      <QueryStatus
        query={passkeys}
        loading={t`Loading passkeys...`}
        failed={t`We couldn't load your passkeys. Please try again later.`}
      />
      {passkeys.isSuccess && passkeys.data.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>You have no passkeys yet.</Trans>
        </p>
      ) : null}
      {passkeys.isSuccess && passkeys.data.length > 0 ? (
        <ul className="flex flex-col gap-2" aria-label={t`Your passkeys`}>
          {passkeys.data.map((passkey) => (
            <PasskeyRow
              key={passkey.id}
              userId={user.id}
              passkey={passkey}
              mode={mode?.id === passkey.id ? mode.kind : null}
              onMode={(kind) => {
                setMessage(null);
                setRemoveError(null);
                setMode(kind ? { id: passkey.id, kind } : null);
              }}
              onDone={(done) => {
                setMode(null);
                setMessage(done);
              }}
              removing={remove.isPending}
              removeError={removeError}
              onRemove={() => {
                setRemoveError(null);
                remove.mutate(passkey.id, {
                  onSuccess: () => {
                    setMode(null);
                    setMessage({ tone: 'success', text: `${passkey.name} was removed.` });
                    // Its row is gone: focus moves to what is left to do.
                    addRef.current?.focus();
                  },
                  onError: (err) => setRemoveError(removePasskeyErrorMessage(err)),
                });
              }}
            />
          ))}
        </ul>
      ) : null}
      {supported ? (
        <div>
          <Button
            ref={addRef}
            className="w-full sm:w-auto sm:min-w-48"
            disabled={add.isPending}
            onClick={onAdd}
          >
            {add.isPending ? t`Adding...` : t`Add a Passkey`}
          </Button>
        </div>
      ) : (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>This browser cannot make passkeys. Try another browser or device.</Trans>
        </p>
      )}
    </TitledCard>
  );
}

function PasskeyRow({
  userId,
  passkey,
  mode,
  onMode,
  onDone,
  removing,
  removeError,
  onRemove,
}: {
  userId: string;
  passkey: Passkey;
  mode: 'rename' | 'remove' | null;
  onMode: (kind: 'rename' | 'remove' | null) => void;
  /** Renamed: what the card says. */
  onDone: (message: Message) => void;
  removing: boolean;
  removeError: string | null;
  onRemove: () => void;
}) {
  const nameId = useId();
  const renameRef = useRef<HTMLButtonElement>(null);
  const returning = useRef(false);
  useEffect(() => {
    // Back from renaming or Cancel: focus goes back where the member was.
    if (mode === null && returning.current) renameRef.current?.focus();
    returning.current = mode !== null;
  }, [mode]);

  return (
    <li className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 dark:border-slate-700">
      {mode === 'rename' ? (
        <RenameForm
          userId={userId}
          passkey={passkey}
          onCancel={() => onMode(null)}
          onDone={onDone}
        />
      ) : (
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <div className="flex min-w-0 flex-col gap-1">
            <p id={nameId} className="font-semibold wrap-anywhere">
              {passkey.name}
            </p>
            <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-700 dark:text-slate-300">
              <dt>
                <Trans>Added</Trans>
              </dt>
              <dd>{formatDateTime(passkey.created)}</dd>
              <dt>
                <Trans>Last used</Trans>
              </dt>
              <dd>{passkey.lastUsed ? formatDateTime(passkey.lastUsed) : t`Never`}</dd>
            </dl>
          </div>
          {mode === 'remove' ? null : (
            <div className="flex shrink-0 flex-col gap-2 min-[360px]:flex-row">
              <Button
                ref={renameRef}
                variant="secondary"
                className="min-w-24"
                aria-describedby={nameId}
                onClick={() => onMode('rename')}
              >
                <Trans>Rename</Trans>
              </Button>
              <Button
                variant="secondary"
                className="min-w-24"
                aria-describedby={nameId}
                onClick={() => onMode('remove')}
              >
                <Trans>Remove</Trans>
              </Button>
            </div>
          )}
        </div>
      )}
      {mode === 'remove' ? (
        <RemoveQuestion
          busy={removing}
          error={removeError}
          onConfirm={onRemove}
          onCancel={() => onMode(null)}
        />
      ) : null}
    </li>
  );
}

function RenameForm({
  userId,
  passkey,
  onCancel,
  onDone,
}: {
  userId: string;
  passkey: Passkey;
  onCancel: () => void;
  onDone: (message: Message) => void;
}) {
  const rename = useRenamePasskey(userId);
  const [name, setName] = useState(passkey.name);
  const refs = { name: useRef<HTMLInputElement>(null) };
  useEffect(() => {
    refs.name.current?.focus();
    refs.name.current?.select();
    // Once, when the form opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const form = useFormSubmit({
    check: () => {
      const trimmed = name.trim();
      if (!trimmed) return { field: 'name' as const, message: t`Please enter a name.` };
      if (trimmed.length > MAX_PASSKEY_NAME) {
        return {
          field: 'name' as const,
          message: t`The name can be at most ${MAX_PASSKEY_NAME} characters.`,
        };
      }
      return null;
    },
    fields: refs,
    submit: async () => {
      const renamed = await rename.mutateAsync({ id: passkey.id, name });
      onDone({ tone: 'success', text: t`Passkey renamed to "${renamed.name}".` });
    },
    failure: renamePasskeyErrorMessage,
  });

  return (
    <form
      noValidate
      onSubmit={form.onSubmit}
      aria-label={t`Rename the passkey ${passkey.name}`}
      className="flex flex-col gap-3"
    >
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <Field
        ref={refs.name}
        label={t`Passkey Name`}
        name="name"
        type="text"
        autoComplete="off"
        required
        value={name}
        aria-invalid={form.invalid === 'name' || undefined}
        onChange={(e) => setName(e.target.value)}
      />
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button type="submit" className="w-full sm:w-auto sm:min-w-32" disabled={form.busy}>
          {form.busy ? t`Saving...` : t`Save`}
        </Button>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-32"
          disabled={form.busy}
          onClick={onCancel}
        >
          <Trans>Cancel</Trans>
        </Button>
      </div>
    </form>
  );
}

function RemoveQuestion({
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const questionRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => questionRef.current?.focus(), []);

  return (
    <div className="flex flex-col gap-3">
      <p ref={questionRef} tabIndex={-1} className="text-sm focus:outline-none">
        <Trans>
          <span className="font-semibold">Remove this passkey?</span> It will no longer sign you in.
          Remove it from your device or password manager too.
        </Trans>
      </p>
      <LiveMessage tone="error">{error}</LiveMessage>
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button
          variant="danger"
          className="w-full sm:w-auto sm:min-w-32"
          disabled={busy}
          onClick={onConfirm}
        >
          {busy ? t`Removing...` : t`Yes, Remove`}
        </Button>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-32"
          disabled={busy}
          onClick={onCancel}
        >
          <Trans>Cancel</Trans>
        </Button>
      </div>
    </div>
  );
}

import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Dialog } from '../../components/dialog';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Field } from '../../components/ui/field';
import { PasswordField } from '../../components/ui/password-field';
import { textLink } from '../../components/ui/screen';
import type { Auth } from '../../lib/auth';
import { connectedProvidersQueryOptions } from '../providers/api';
import {
  confirmWithCode,
  confirmWithPassword,
  confirmWithPasskey,
  providerProblem,
  reauthProblem,
  reauthStatusQueryOptions,
  type ReauthMethod,
} from './api';

/** A proof typed into the dialog's one field. */
type Typed = Extract<ReauthMethod, 'password' | 'code'>;

const LINES: Record<Typed | 'passkey' | 'provider' | 'none', (provider?: string) => string> = {
  password: () =>
    t`For your security, enter your password to continue. You won't be asked again for a few minutes.`,
  code: () =>
    t`For your security, enter a code from your authenticator app or a recovery code to continue. You won't be asked again for a few minutes.`,
  passkey: () =>
    t`For your security, use your passkey to continue. You won't be asked again for a few minutes.`,
  provider: (name = '') =>
    t`For your security, sign in with ${name} again to continue. You won't be asked again for a few minutes.`,
  none: () => t`For your security, confirm it's you to continue.`,
};

const fieldsOf = (): Record<
  Typed,
  { label: string; autoComplete: string; hint?: string; missing: string }
> => ({
  password: {
    label: t`Password`,
    autoComplete: 'current-password',
    missing: t`Enter your password.`,
  },
  code: {
    label: t`Authentication Code`,
    autoComplete: 'one-time-code',
    hint: t`A 6-digit code or a recovery code.`,
    missing: t`Enter a code from your authenticator app or a recovery code.`,
  },
});

/**
 * "Confirm it's you" (docs/api.md), after GitHub's sudo mode: the proofs this member has (GET
 * /api/gatehouse/reauth) — their password, a code from the authenticator app or a recovery code,
 * a passkey — or, for a member whose only way in is a provider, signing in with it again.
 * `onDone(true)` once the session is confirmed (the action that asked is then sent again),
 * `onDone(false)` on Cancel or Escape.
 */
export function ConfirmDialog({
  auth,
  onDone,
  returnFocusTo,
}: {
  auth: Auth;
  onDone: (confirmed: boolean) => void;
  /** The control that started the action: focus goes back there when the dialog closes. */
  returnFocusTo: HTMLElement | null;
}) {
  const userId = auth.user()?.id ?? '';
  const status = useQuery(reauthStatusQueryOptions(userId));
  const methods = status.data?.methods ?? [];
  const typedMethods = methods.filter((m): m is Typed => m === 'password' || m === 'code');
  const hasPasskey = methods.includes('response');
  const providerOnly = status.isSuccess && methods.length === 0;
  const providers = useQuery({ ...connectedProvidersQueryOptions(userId), enabled: providerOnly });
  const connected = providers.data?.items ?? [];

  const [chosen, setChosen] = useState<Typed | null>(null);
  const typed = chosen && typedMethods.includes(chosen) ? chosen : (typedMethods[0] ?? null);
  const [value, setValue] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ text: string; tone: 'error' | 'info' } | null>(null);
  const [busy, setBusy] = useState<'typed' | 'passkey' | string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  // Another tab (or a sign-in) confirmed this session since the server asked.
  const alreadyFresh = status.data?.fresh === true;
  useEffect(() => {
    if (alreadyFresh) onDone(true);
  }, [alreadyFresh, onDone]);

  // The field takes focus when it shows, and again when the member switches proof.
  useEffect(() => {
    if (typed) input.current?.focus();
  }, [typed]);

  async function attempt(
    kind: string,
    proof: () => Promise<void>,
    failure: (err: unknown) => void,
  ): Promise<void> {
    if (busy) return;
    setProblem(null);
    setFieldError(null);
    setBusy(kind);
    try {
      await proof();
    } catch (err) {
      setBusy(null);
      failure(err);
      return;
    }
    onDone(true);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!typed) return;
    if (!value.trim()) {
      setFieldError(fieldsOf()[typed].missing);
      input.current?.focus();
      return;
    }
    const check = typed === 'password' ? confirmWithPassword : confirmWithCode;
    void attempt(
      'typed',
      () => check(value),
      (err) => {
        const said = reauthProblem(err);
        if (said.field) {
          setFieldError(said.field);
          input.current?.select();
          input.current?.focus();
        } else if (said.form) {
          setProblem({ text: said.form, tone: said.tone });
        }
      },
    );
  }

  function switchTo(next: Typed) {
    setChosen(next);
    setValue('');
    setFieldError(null);
    setProblem(null);
  }

  const line = !status.isSuccess
    ? LINES.none()
    : typed
      ? LINES[typed]()
      : hasPasskey
        ? LINES.passkey()
        : connected.length > 0
          ? LINES.provider(connected.map((p) => p.displayName).join(' or '))
          : LINES.none();

  const other = typedMethods.find((m) => m !== typed);
  // The password with Show / Hide, as everywhere; a code as text.
  const TypedField = typed === 'password' ? PasswordField : Field;

  return (
    <Dialog
      title={t`Confirm it's you`}
      description={line}
      onCancel={() => onDone(false)}
      returnFocusTo={returnFocusTo}
    >
      <LiveMessage tone={problem?.tone ?? 'error'}>{problem?.text}</LiveMessage>
      {status.isPending || (providerOnly && providers.isPending) ? (
        <p role="status" className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>Loading...</Trans>
        </p>
      ) : null}
      {status.isError || providers.isError ? (
        <div className="flex flex-col gap-3">
          <p role="alert" className="text-sm text-red-800 dark:text-red-200">
            <Trans>
              We couldn&apos;t check how you can confirm it&apos;s you. Please try again.
            </Trans>
          </p>
          <Button
            variant="secondary"
            onClick={() => void (status.isError ? status.refetch() : providers.refetch())}
          >
            <Trans>Try Again</Trans>
          </Button>
        </div>
      ) : null}

      {typed ? (
        <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
          <TypedField
            key={typed}
            ref={input}
            label={fieldsOf()[typed].label}
            name={typed}
            autoComplete={fieldsOf()[typed].autoComplete}
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            hint={fieldsOf()[typed].hint}
            required
            value={value}
            error={fieldError}
            onChange={(e) => setValue(e.target.value)}
          />
          <Button type="submit" className="w-full" disabled={busy !== null}>
            {busy === 'typed' ? t`Confirming...` : t`Confirm`}
          </Button>
        </form>
      ) : null}

      {other ? (
        <p className="text-sm">
          <button type="button" className={textLink} onClick={() => switchTo(other)}>
            {other === 'code'
              ? t`Use a code from your authenticator app or a recovery code`
              : t`Use your password`}
          </button>
        </p>
      ) : null}

      {hasPasskey ? (
        <Button
          variant={typed ? 'secondary' : 'primary'}
          className="w-full"
          disabled={busy !== null}
          onClick={() =>
            void attempt('passkey', confirmWithPasskey, (err) => {
              const said = reauthProblem(err);
              setProblem({ text: said.form ?? said.field ?? '', tone: said.tone });
            })
          }
        >
          {busy === 'passkey' ? t`Waiting for your passkey...` : t`Use a passkey`}
        </Button>
      ) : null}

      {providerOnly
        ? connected.map((p) => (
            <Button
              key={p.name}
              variant={connected.length === 1 ? 'primary' : 'secondary'}
              className="w-full"
              disabled={busy !== null}
              onClick={() =>
                void attempt(
                  `provider:${p.name}`,
                  () => auth.confirmWithProvider(p.name),
                  (err) => setProblem({ text: providerProblem(err, p.displayName), tone: 'error' }),
                )
              }
            >
              {busy === `provider:${p.name}` ? t`Continuing...` : t`Continue with ${p.displayName}`}
            </Button>
          ))
        : null}

      {providerOnly && providers.isSuccess && connected.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>
            There is no way to confirm it&apos;s you on this device. Log out, then sign in again to
            continue.
          </Trans>
        </p>
      ) : null}

      <Button variant="ghost" className="w-full" onClick={() => onDone(false)}>
        <Trans>Cancel</Trans>
      </Button>
    </Dialog>
  );
}

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { appName } from '../../lib/app-config';
import { fieldCodeOf, messageOf, statusOf } from '../../lib/api-error';
import type { UserRecord } from '../../lib/session';
import { useFormSubmit } from '../../lib/use-form-submit';
import { securityEventsKeys } from '../audit/api';
import {
  disableTwoStep,
  enableTwoStep,
  newRecoveryCodes,
  saveTextFile,
  setUpAuthenticator,
  twoStepKeys,
  twoStepPasswordErrorMessage,
  twoStepQueryOptions,
} from './api';
import { CurrentPasswordField } from './current-password-field';
import { checkAuthenticationCode, codeFailureMessage } from './validation';

export const TURNED_OFF_MESSAGE = 'Two-step sign-in is off.';

type View =
  | { kind: 'status'; returning: boolean }
  | { kind: 'setup'; secret: string; qrSvg: string }
  | { kind: 'codes'; codes: string[] }
  | { kind: 'password'; action: 'disable' | 'renew' };

/**
 * Settings → Two-Step Sign-In: turn on a code from an authenticator app (QR code or typed key,
 * then a code to prove it works), see the 10 recovery codes once, get new ones or turn it off
 * (both with the password). Each new step's heading takes focus.
 */
export function TwoStepCard({ user }: { user: UserRecord }) {
  const queryClient = useQueryClient();
  const [view, setView] = useState<View>({ kind: 'status', returning: false });
  const [notice, setNotice] = useState<string | null>(null);

  function changed() {
    void queryClient.invalidateQueries({ queryKey: twoStepKeys.of(user.id) });
    void queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(user.id) });
  }
  const backToStatus = () => setView({ kind: 'status', returning: true });

  return (
    <TitledCard
      title="Two-Step Sign-In"
      description="Ask for a code from an authenticator app on your phone each time you sign in with your password."
    >
      <LiveMessage tone="success">{view.kind === 'status' ? notice : null}</LiveMessage>
      {view.kind === 'status' ? (
        <StatusView
          userId={user.id}
          returning={view.returning}
          onSetUp={(setup) => {
            setNotice(null);
            setView({ kind: 'setup', ...setup });
          }}
          onPassword={(action) => {
            setNotice(null);
            setView({ kind: 'password', action });
          }}
        />
      ) : null}
      {view.kind === 'setup' ? (
        <SetupView
          secret={view.secret}
          qrSvg={view.qrSvg}
          onEnabled={(codes) => {
            changed();
            setView({ kind: 'codes', codes });
          }}
          onCancel={backToStatus}
        />
      ) : null}
      {view.kind === 'codes' ? <CodesView codes={view.codes} onDone={backToStatus} /> : null}
      {view.kind === 'password' ? (
        <PasswordView
          action={view.action}
          onDone={(codes) => {
            changed();
            if (codes) {
              setView({ kind: 'codes', codes });
            } else {
              setNotice(TURNED_OFF_MESSAGE);
              backToStatus();
            }
          }}
          onCancel={backToStatus}
        />
      ) : null}
    </TitledCard>
  );
}

/** A step's heading (h3), focused when it appears. */
function StepHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h3 ref={ref} tabIndex={-1} className="text-base font-semibold focus:outline-none">
      {children}
    </h3>
  );
}

const wideButton = 'w-full sm:w-auto sm:min-w-56';

function StatusView({
  userId,
  returning,
  onSetUp,
  onPassword,
}: {
  userId: string;
  /** Back from another step: the state line takes focus. */
  returning: boolean;
  onSetUp: (setup: { secret: string; qrSvg: string }) => void;
  onPassword: (action: 'disable' | 'renew') => void;
}) {
  const status = useQuery(twoStepQueryOptions(userId));
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const stateRef = useRef<HTMLParagraphElement>(null);
  const loaded = status.data !== undefined;
  useEffect(() => {
    if (returning && loaded) stateRef.current?.focus();
  }, [returning, loaded]);

  async function onStart() {
    if (starting) return;
    setError(null);
    setStarting(true);
    try {
      const { secret, qrSvg } = await setUpAuthenticator();
      onSetUp({ secret, qrSvg });
    } catch (err) {
      setError(messageOf(err) ?? 'Failed to set up the authenticator app. Please try again.');
      setStarting(false);
    }
  }

  if (status.isPending) return <p className="text-sm">Loading...</p>;
  if (status.isError) {
    return (
      <p role="alert" className="text-sm text-red-800 dark:text-red-200">
        Failed to load two-step sign-in. Please try again later.
      </p>
    );
  }
  const { enabled, recoveryCodesLeft } = status.data;
  return (
    <div className="flex flex-col gap-4">
      <LiveMessage tone="error">{error}</LiveMessage>
      <p ref={stateRef} tabIndex={-1} className="focus:outline-none">
        {enabled ? (
          <>
            <span className="font-semibold">Two-step sign-in is on.</span>{' '}
            {recoveryCodesLeft === 1
              ? 'You have 1 recovery code left.'
              : `You have ${recoveryCodesLeft} recovery codes left.`}
          </>
        ) : (
          <>
            <span className="font-semibold">Two-step sign-in is off.</span> Your password alone
            signs you in.
          </>
        )}
      </p>
      {enabled ? (
        <div className="flex flex-col gap-3 sm:flex-row">
          <Button variant="secondary" className={wideButton} onClick={() => onPassword('renew')}>
            New Recovery Codes
          </Button>
          <Button variant="danger" className={wideButton} onClick={() => onPassword('disable')}>
            Turn Off
          </Button>
        </div>
      ) : (
        <div>
          <Button className={wideButton} disabled={starting} onClick={onStart}>
            {starting ? 'Setting up...' : 'Set Up Authenticator App'}
          </Button>
        </div>
      )}
    </div>
  );
}

/** The seed in groups of four, easier to type. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

function SetupView({
  secret,
  qrSvg,
  onEnabled,
  onCancel,
}: {
  secret: string;
  qrSvg: string;
  onEnabled: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const [code, setCode] = useState('');
  const refs = { code: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () => checkAuthenticationCode(code),
    fields: refs,
    submit: async () => onEnabled(await enableTwoStep(code)),
    // A wrong code or the lock in the login screen's words; "Set up the authenticator app first."
    // and the like as the server says them.
    failure: (err) =>
      fieldCodeOf(err, 'code') || statusOf(err) === 429
        ? codeFailureMessage(err)
        : (messageOf(err) ?? codeFailureMessage(err)),
  });

  return (
    <form
      noValidate
      onSubmit={form.onSubmit}
      aria-label="Set up the authenticator app"
      className="flex flex-col gap-4"
    >
      <StepHeading>Set Up Authenticator App</StepHeading>
      <p className="text-sm">
        Scan this QR code with your authenticator app, then enter the 6-digit code it shows.
      </p>
      <img
        src={`data:image/svg+xml;utf8,${encodeURIComponent(qrSvg)}`}
        alt="QR code to add your account to an authenticator app"
        width={192}
        height={192}
        className="size-48 rounded-md border border-slate-300 bg-white p-2 dark:border-slate-600"
      />
      <div className="flex flex-col gap-1">
        <p className="text-sm">Can&apos;t scan it? Type this key into the app instead:</p>
        <code
          aria-label="Setup key"
          className="rounded-md bg-slate-100 px-3 py-2 font-mono text-base wrap-anywhere dark:bg-slate-800"
        >
          {grouped(secret)}
        </code>
      </div>
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <Field
        ref={refs.code}
        label="Authentication Code"
        name="code"
        type="text"
        inputMode="numeric"
        autoComplete="one-time-code"
        spellCheck={false}
        required
        value={code}
        aria-invalid={form.invalid === 'code' || undefined}
        onChange={(e) => setCode(e.target.value)}
      />
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button type="submit" className={wideButton} disabled={form.busy}>
          {form.busy ? 'Turning on...' : 'Turn On'}
        </Button>
        <Button variant="secondary" className={wideButton} disabled={form.busy} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

export function recoveryCodesFileName(): string {
  return `${appName()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')}-recovery-codes.txt`;
}

async function copyText(text: string): Promise<void> {
  if (!navigator.clipboard?.writeText) throw new Error('No clipboard');
  await navigator.clipboard.writeText(text);
}

function CodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const text = `${codes.join('\n')}\n`;

  async function onCopy() {
    try {
      await copyText(text);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <StepHeading>Your Recovery Codes</StepHeading>
      <p className="text-sm">
        Keep these codes somewhere safe. If you lose your phone, each one signs you in once in place
        of a code from the app. They are shown only this once.
      </p>
      <ul
        aria-label="Recovery codes"
        className="grid grid-cols-1 gap-2 rounded-md bg-slate-100 p-3 font-mono text-base min-[360px]:grid-cols-2 dark:bg-slate-800"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <LiveMessage tone="success">
        {copy === 'copied' ? 'Recovery codes copied.' : null}
      </LiveMessage>
      <LiveMessage tone="error">
        {copy === 'failed' ? 'Could not copy. Please select the codes and copy them.' : null}
      </LiveMessage>
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button variant="secondary" className="w-full sm:w-auto sm:min-w-32" onClick={onCopy}>
          Copy
        </Button>
        <Button
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-32"
          onClick={() => saveTextFile(recoveryCodesFileName(), text)}
        >
          Download
        </Button>
        <Button className="w-full sm:w-auto sm:min-w-32" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

function PasswordView({
  action,
  onDone,
  onCancel,
}: {
  action: 'disable' | 'renew';
  /** New recovery codes, or none after turning off. */
  onDone: (codes: string[] | null) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const refs = { password: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () =>
      password ? null : { field: 'password' as const, message: 'Please enter your password.' },
    fields: refs,
    submit: async () => {
      if (action === 'renew') {
        onDone(await newRecoveryCodes(password));
      } else {
        await disableTwoStep(password);
        onDone(null);
      }
    },
    failure: twoStepPasswordErrorMessage,
  });
  const renew = action === 'renew';

  return (
    <form
      noValidate
      onSubmit={form.onSubmit}
      aria-label={renew ? 'Get new recovery codes' : 'Turn off two-step sign-in'}
      className="flex flex-col gap-4"
    >
      <StepHeading>{renew ? 'New Recovery Codes' : 'Turn Off Two-Step Sign-In'}</StepHeading>
      <p className="text-sm">
        {renew
          ? 'Enter your password to get 10 new recovery codes. Your current ones will stop working.'
          : 'Enter your password to turn two-step sign-in off. Your recovery codes will stop working.'}
      </p>
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <CurrentPasswordField
        ref={refs.password}
        value={password}
        invalid={form.invalid === 'password'}
        onChange={(e) => setPassword(e.target.value)}
      />
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button
          type="submit"
          variant={renew ? 'primary' : 'danger'}
          className={wideButton}
          disabled={form.busy}
        >
          {renew
            ? form.busy
              ? 'Creating...'
              : 'New Recovery Codes'
            : form.busy
              ? 'Turning off...'
              : 'Turn Off'}
        </Button>
        <Button variant="secondary" className={wideButton} disabled={form.busy} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

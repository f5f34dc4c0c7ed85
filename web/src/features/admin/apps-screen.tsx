import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button, focusRing } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { cn } from '../../components/ui/cn';
import { Field } from '../../components/ui/field';
import { QueryStatus } from '../../components/ui/query-status';
import { ScreenHeader, usePageTitle } from '../../components/ui/screen';
import { isNotConfirmed, statusOf } from '../../lib/api-error';
import { useCurrentUser } from '../../lib/auth';
import { copyText } from '../../lib/clipboard';
import { formatDateTime } from '../../lib/dates';
import { fieldTexts } from '../../lib/messages';
import { adminErrorMessage } from './api';
import {
  APP_FIELDS,
  appsKeys,
  appsQueryOptions,
  linesOf,
  newAppSecret,
  registerApp,
  removeApp,
  updateApp,
  type App,
  type AppField,
  type AppFields,
  type AppSavedAnswer,
} from './apps-api';
import { ConfirmAction } from './confirm-action';

const COPIED_MS = 2000;

const TYPES = () =>
  [
    {
      value: 'confidential',
      label: t`Confidential`,
      hint: t`An app with a server of its own (a forum, a wiki): it keeps a secret.`,
    },
    {
      value: 'public',
      label: t`Public`,
      hint: t`An app that runs in the browser or on a phone: no secret, PKCE only.`,
    },
  ] as const;

const GROUPS = () =>
  [
    { value: 'members', label: t`Members`, hint: t`Every member may sign in to it.` },
    { value: 'operators', label: t`Operators only`, hint: t`Other members are turned away.` },
  ] as const;

/** A question before an action on an app. */
type Asking = { kind: 'remove' | 'secret'; app: App } | null;

/** Settings to copy into the app, shown once: after registering, or with a new secret. */
type Shown = { answer: AppSavedAnswer; heading: string } | null;

/**
 * Admin → Apps: the community's other apps that sign members in with Gatehouse (OpenID Connect),
 * each with its client id, return addresses, kind of client and who may use it; Register App
 * (the server checks the fields, its words show under them) shows the new app's secret this once,
 * with Copy; Edit changes an app's settings with the same checks; New Secret and Remove ask
 * first, naming the app. Each of these needs a fresh session ("Confirm it's you", lib/pb.ts).
 */
export function AppsScreen() {
  usePageTitle(t`Apps`);
  const viewer = useCurrentUser()?.id ?? '';
  const queryClient = useQueryClient();
  const apps = useQuery(appsQueryOptions(viewer));
  const [shown, setShown] = useState<Shown>(null);
  const [asking, setAsking] = useState<Asking>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: appsKeys.apps(viewer) });

  async function onConfirm(question: NonNullable<Asking>) {
    const { kind, app } = question;
    setRunning(true);
    setNotice(null);
    setError(null);
    try {
      if (kind === 'remove') {
        await removeApp(app.id);
        setNotice(`${app.name} has been removed. It can no longer sign anyone in.`);
        if (shown?.answer.app.id === app.id) setShown(null);
        if (editing === app.id) setEditing(null);
      } else {
        const secret = await newAppSecret(app.id);
        setShown({ answer: { app, secret }, heading: t`A New Secret for ${app.name}` });
      }
    } catch (err) {
      setError(
        adminErrorMessage(
          err,
          kind === 'remove'
            ? t`Failed to remove the app. Please try again.`
            : t`Failed to make a new secret. Please try again.`,
        ),
      );
    }
    setAsking(null);
    setRunning(false);
    await refresh();
  }

  const issuer = apps.data?.issuer;
  return (
    <>
      <ScreenHeader
        title={t`Apps`}
        description={t`The community's other apps that sign members in with Gatehouse (OpenID Connect). Nobody gets in through them without a membership here.`}
      />
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>

      {shown ? (
        <SecretCard
          key={`${shown.answer.app.id}:${shown.answer.secret}`}
          heading={shown.heading}
          saved={shown.answer}
          issuer={issuer ?? ''}
          onDone={() => setShown(null)}
        />
      ) : null}

      <TitledCard
        title={t`Registered Apps`}
        description={
          issuer ? (
            <>
              <Trans>
                Set each app up with the issuer{' '}
                <code className="font-mono wrap-anywhere">{issuer}</code>, its client id and, for a
                confidential app, its secret.
              </Trans>
            </>
          ) : undefined
        }
      >
        <QueryStatus
          query={apps}
          loading={t`Loading apps...`}
          failed={t`We couldn't load the apps. ${adminErrorMessage(apps.error, t`Please try again later.`)}`}
        />
        {apps.isSuccess && apps.data.items.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">
            {t`No apps yet. Register one below to let members sign in to it with their membership.`}
          </p>
        ) : null}
        {apps.isSuccess && apps.data.items.length > 0 ? (
          <ul className="flex flex-col gap-2" aria-label={t`Apps`}>
            {apps.data.items.map((app) =>
              editing === app.id ? (
                <li
                  key={app.id}
                  className="rounded-md border border-slate-200 px-3 py-3 dark:border-slate-700"
                >
                  <AppForm
                    label={t`Edit ${app.name}`}
                    initial={draftOf(app)}
                    submit={(fields) => updateApp(app.id, fields)}
                    submitLabel={t`Save Changes`}
                    busyLabel={t`Saving...`}
                    failure={t`Failed to save the app. Please try again.`}
                    onCancel={() => setEditing(null)}
                    onSaved={async (answer) => {
                      setEditing(null);
                      setError(null);
                      setNotice(`${answer.app.name} has been saved.`);
                      if (answer.secret) {
                        setShown({ answer, heading: t`A New Secret for ${answer.app.name}` });
                      }
                      await refresh();
                    }}
                  />
                </li>
              ) : (
                <AppRow
                  key={app.id}
                  app={app}
                  disabled={running}
                  onEdit={() => {
                    setNotice(null);
                    setEditing(app.id);
                  }}
                  onNewSecret={() => setAsking({ kind: 'secret', app })}
                  onRemove={() => setAsking({ kind: 'remove', app })}
                />
              ),
            )}
          </ul>
        ) : null}
      </TitledCard>

      <TitledCard
        title={t`Register an App`}
        description={t`Only the return addresses listed here are accepted, exactly as written.`}
      >
        <AppForm
          label={t`Register an App`}
          initial={EMPTY}
          submit={registerApp}
          submitLabel={t`Register App`}
          busyLabel={t`Registering...`}
          failure={t`Failed to register the app. Please try again.`}
          onSaved={async (answer) => {
            setNotice(null);
            setError(null);
            setShown({ answer, heading: t`${answer.app.name} Is Registered` });
            await refresh();
          }}
        />
      </TitledCard>

      {asking?.kind === 'remove' ? (
        <ConfirmAction
          question={{
            title: t`Remove ${asking.app.name}?`,
            description: t`It can no longer sign anyone in: every sign-in it holds ends now, and what members allowed it to know is forgotten. This cannot be undone.`,
            confirm: t`Yes, Remove`,
            busy: t`Removing...`,
          }}
          running={running}
          onCancel={() => setAsking(null)}
          onConfirm={() => void onConfirm(asking)}
        />
      ) : null}
      {asking?.kind === 'secret' ? (
        <ConfirmAction
          question={{
            title: t`A new secret for ${asking.app.name}?`,
            description: t`The secret it has now stops working at once: the app signs no one in until its settings have the new one, which is shown once.`,
            confirm: t`Yes, Make a New Secret`,
            busy: t`Making...`,
          }}
          running={running}
          onCancel={() => setAsking(null)}
          onConfirm={() => void onConfirm(asking)}
        />
      ) : null}
    </>
  );
}

function AppRow({
  app,
  disabled,
  onEdit,
  onNewSecret,
  onRemove,
}: {
  app: App;
  disabled: boolean;
  onEdit: () => void;
  onNewSecret: () => void;
  onRemove: () => void;
}) {
  const nameId = useId();
  return (
    <li className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 dark:border-slate-700">
      <span id={nameId} className="font-semibold wrap-anywhere">
        {app.name}
      </span>
      <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <Detail term={t`Client ID`}>
          <code className="font-mono wrap-anywhere">{app.id}</code>
        </Detail>
        <Detail term={t`Return addresses`}>
          <Addresses uris={app.redirectUris} />
        </Detail>
        {app.postLogoutRedirectUris.length > 0 ? (
          <Detail term={t`Sign-out return addresses`}>
            <Addresses uris={app.postLogoutRedirectUris} />
          </Detail>
        ) : null}
        {app.backchannelLogoutUri ? (
          <Detail term={t`Back-channel logout`}>
            <Addresses uris={[app.backchannelLogoutUri]} />
          </Detail>
        ) : null}
        <Detail term={t`Client`}>
          {app.type === 'public' ? t`Public (no secret, PKCE)` : t`Confidential (has a secret)`}
        </Detail>
        <Detail term={t`Who may use it`}>
          {app.group === 'operators' ? t`Operators only` : t`Members`}
        </Detail>
        <Detail term={t`Registered`}>{formatDateTime(app.created)}</Detail>
      </dl>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Button
          variant="secondary"
          className="sm:min-w-24"
          aria-describedby={nameId}
          disabled={disabled}
          onClick={onEdit}
        >
          {t`Edit`}
        </Button>
        {app.type === 'confidential' ? (
          <Button
            variant="secondary"
            aria-describedby={nameId}
            disabled={disabled}
            onClick={onNewSecret}
          >
            {t`New Secret`}
          </Button>
        ) : null}
        <Button
          variant="secondary"
          className="sm:min-w-24"
          aria-describedby={nameId}
          disabled={disabled}
          onClick={onRemove}
        >
          {t`Remove`}
        </Button>
      </div>
    </li>
  );
}

function Addresses({ uris }: { uris: string[] }) {
  return (
    <ul className="flex flex-col gap-1">
      {uris.map((uri) => (
        <li key={uri}>
          <code className="font-mono wrap-anywhere">{uri}</code>
        </li>
      ))}
    </ul>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium text-slate-700 dark:text-slate-300">{term}</dt>
      <dd className="mb-2 min-w-0 sm:mb-0">{children}</dd>
    </>
  );
}

/**
 * The new app's settings for its sign-in page: the issuer, the client id and (a confidential
 * app's) secret, each with Copy. The secret is never shown again: the card says so, and Done
 * puts it away. Its heading takes focus, so keyboard and screen-reader users land on it.
 */
function SecretCard({
  heading: title,
  saved,
  issuer,
  onDone,
}: {
  heading: string;
  saved: AppSavedAnswer;
  issuer: string;
  onDone: () => void;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  const { app, secret } = saved;
  return (
    <Card
      aria-labelledby={headingId}
      className="flex flex-col gap-4 border-blue-300 dark:border-blue-800"
    >
      <h2
        id={headingId}
        ref={heading}
        tabIndex={-1}
        className="text-lg font-semibold wrap-anywhere focus:outline-none"
      >
        {title}
      </h2>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        {t`Type these into the app's OpenID Connect settings (the operations guide, under “Connecting an app”, shows where for common apps).`}
      </p>
      <dl className="flex flex-col gap-3 text-sm">
        {issuer ? <CopyableValue term={t`Issuer`} value={issuer} /> : null}
        <CopyableValue term={t`Client ID`} value={app.id} />
        {secret ? <CopyableValue term={t`Client Secret`} value={secret} /> : null}
      </dl>
      {secret ? (
        <Alert tone="info">
          <Trans>
            <strong>The secret will not be shown again.</strong> Copy it now and keep it only in the
            app&apos;s settings. If it is lost, make a new one with New Secret.
          </Trans>
        </Alert>
      ) : (
        <Alert tone="info">
          {t`A public app has no secret: it proves each sign-in with PKCE.`}
        </Alert>
      )}
      <div>
        <Button className="w-full sm:w-auto sm:min-w-32" onClick={onDone}>
          {t`Done`}
        </Button>
      </div>
    </Card>
  );
}

function CopyableValue({ term, value }: { term: string; value: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function onCopy() {
    try {
      await copyText(value);
    } catch {
      setState('failed');
      return;
    }
    setState('copied');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), COPIED_MS);
  }

  return (
    <div className="flex flex-col gap-1">
      <dt className="font-medium text-slate-700 dark:text-slate-300">{term}</dt>
      <dd className="flex flex-col gap-1">
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
          <code className="min-w-0 flex-1 rounded-md bg-slate-100 px-3 py-2 font-mono wrap-anywhere dark:bg-slate-800">
            {value}
          </code>
          <Button
            variant="secondary"
            className="shrink-0 sm:min-w-24"
            aria-label={t`Copy ${term}`}
            onClick={() => void onCopy()}
          >
            {state === 'copied' ? t`Copied` : t`Copy`}
          </Button>
        </div>
        <p role="status" className="text-sm">
          {state === 'copied' ? `${term} copied.` : null}
          {state === 'failed' ? t`Copying did not work here: select the text and copy it.` : null}
        </p>
      </dd>
    </div>
  );
}

type Draft = {
  name: string;
  redirectUris: string;
  postLogoutRedirectUris: string;
  backchannelLogoutUri: string;
  type: AppFields['type'];
  /** The method an app being edited has (kept while it stays confidential); '' when new. */
  authMethod: string;
  group: AppFields['group'];
};

const EMPTY: Draft = {
  name: '',
  redirectUris: '',
  postLogoutRedirectUris: '',
  backchannelLogoutUri: '',
  type: 'confidential',
  authMethod: '',
  group: 'members',
};

function draftOf(app: App): Draft {
  return {
    name: app.name,
    redirectUris: app.redirectUris.join('\n'),
    postLogoutRedirectUris: app.postLogoutRedirectUris.join('\n'),
    backchannelLogoutUri: app.backchannelLogoutUri,
    type: app.type,
    authMethod: app.authMethod === 'none' ? '' : app.authMethod,
    group: app.group,
  };
}

/**
 * An app's settings as a form (Register an App, and Edit): the name members see, the exact return
 * addresses (one a line), the optional sign-out addresses, the kind of client and who may use it.
 * The server checks every field; what it refuses shows under its field, the first one focused.
 * Editing, the name field takes focus, and Cancel goes back.
 */
function AppForm({
  label,
  initial,
  submit,
  submitLabel,
  busyLabel,
  failure: failed,
  onSaved,
  onCancel,
}: {
  label: string;
  initial: Draft;
  submit: (fields: AppFields) => Promise<AppSavedAnswer>;
  submitLabel: string;
  busyLabel: string;
  failure: string;
  onSaved: (answer: AppSavedAnswer) => Promise<void>;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [errors, setErrors] = useState<Partial<Record<AppField, string>>>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const inputs = useRef<Partial<Record<AppField, HTMLInputElement | HTMLTextAreaElement | null>>>(
    {},
  );
  const editing = onCancel !== undefined;
  useEffect(() => {
    if (editing) inputs.current.name?.focus();
  }, [editing]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setErrors({});
    setFailure(null);
    setBusy(true);
    try {
      const answer = await submit({
        name: draft.name.trim(),
        redirectUris: linesOf(draft.redirectUris),
        postLogoutRedirectUris: linesOf(draft.postLogoutRedirectUris),
        backchannelLogoutUri: draft.backchannelLogoutUri.trim(),
        type: draft.type,
        ...(draft.type === 'confidential' && draft.authMethod
          ? { authMethod: draft.authMethod }
          : {}),
        group: draft.group,
      });
      if (!editing) setDraft(EMPTY);
      setBusy(false);
      await onSaved(answer);
      return;
    } catch (err) {
      const refused = statusOf(err) === 400 && !isNotConfirmed(err) ? fieldTexts(err) : {};
      const found: Partial<Record<AppField, string>> = {};
      for (const field of APP_FIELDS) {
        const message = refused[field];
        if (message) found[field] = message;
      }
      const first = APP_FIELDS.find((field) => found[field]);
      if (first) {
        setErrors(found);
        inputs.current[first]?.focus();
      } else setFailure(adminErrorMessage(err, failed));
    }
    setBusy(false);
  }

  return (
    <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4" aria-label={label}>
      {editing ? <h3 className="font-semibold wrap-anywhere">{label}</h3> : null}
      <LiveMessage tone="error">{failure}</LiveMessage>
      <Field
        ref={(el) => {
          inputs.current.name = el;
        }}
        label={t`Name`}
        hint={t`What members see: “Team Wiki will know your name and email”.`}
        autoComplete="off"
        value={draft.name}
        error={errors.name ?? null}
        onChange={(e) => set('name', e.target.value)}
      />
      <Field
        multiline
        ref={(el) => {
          inputs.current.redirectUris = el;
        }}
        label={t`Return addresses`}
        hint={t`The app's sign-in callback, one address a line (https://wiki.example.org/oauth/callback).`}
        rows={3}
        autoComplete="off"
        spellCheck={false}
        autoCapitalize="none"
        value={draft.redirectUris}
        error={errors.redirectUris ?? null}
        onChange={(e) => set('redirectUris', e.target.value)}
      />
      <Field
        multiline
        ref={(el) => {
          inputs.current.postLogoutRedirectUris = el;
        }}
        label={t`Sign-out return addresses (optional)`}
        hint={t`Where the app may send members after they sign out, one a line.`}
        rows={2}
        autoComplete="off"
        spellCheck={false}
        autoCapitalize="none"
        value={draft.postLogoutRedirectUris}
        error={errors.postLogoutRedirectUris ?? null}
        onChange={(e) => set('postLogoutRedirectUris', e.target.value)}
      />
      <Field
        ref={(el) => {
          inputs.current.backchannelLogoutUri = el;
        }}
        label={t`Back-channel logout address (optional)`}
        hint={t`Gatehouse tells the app here when a member is signed out, disabled or deleted.`}
        type="url"
        autoComplete="off"
        spellCheck={false}
        autoCapitalize="none"
        value={draft.backchannelLogoutUri}
        error={errors.backchannelLogoutUri ?? null}
        onChange={(e) => set('backchannelLogoutUri', e.target.value)}
      />
      <Choice
        legend={t`Client`}
        name="type"
        options={TYPES()}
        value={draft.type}
        error={errors.type}
        onChange={(value) => set('type', value)}
        inputRef={(el) => {
          if (el) inputs.current.type = el;
        }}
      />
      <Choice
        legend={t`Who may use it`}
        name="group"
        options={GROUPS()}
        value={draft.group}
        error={errors.group}
        onChange={(value) => set('group', value)}
        inputRef={(el) => {
          if (el) inputs.current.group = el;
        }}
      />
      <div className="flex flex-col-reverse gap-2 sm:flex-row">
        {onCancel ? (
          <Button variant="secondary" className="sm:min-w-32" disabled={busy} onClick={onCancel}>
            {t`Cancel`}
          </Button>
        ) : null}
        <Button type="submit" className="w-full sm:w-auto sm:min-w-44" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </Button>
      </div>
    </form>
  );
}

/** Radio buttons in a fieldset named by its legend; `inputRef` gets the checked one. */
function Choice<V extends string>({
  legend,
  name,
  options,
  value,
  error,
  onChange,
  inputRef,
}: {
  legend: string;
  name: string;
  options: ReadonlyArray<{ value: V; label: string; hint: string }>;
  value: V;
  error?: string;
  onChange: (value: V) => void;
  inputRef: (el: HTMLInputElement | null) => void;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">
        {legend}
      </legend>
      {options.map((option) => {
        const hintId = `${id}-${option.value}-hint`;
        return (
          <label
            key={option.value}
            className={cn(
              'flex min-h-11 cursor-pointer items-start gap-3 rounded-md border px-3 py-2',
              'border-slate-300 has-checked:border-blue-700 dark:border-slate-600 dark:has-checked:border-blue-300',
            )}
          >
            <input
              ref={option.value === value ? inputRef : undefined}
              type="radio"
              name={name}
              value={option.value}
              checked={option.value === value}
              aria-describedby={hintId}
              className={cn('mt-1 size-5 shrink-0 accent-blue-700 dark:accent-blue-400', focusRing)}
              onChange={() => onChange(option.value)}
            />
            <span className="flex flex-col">
              <span className="font-medium">{option.label}</span>
              <span id={hintId} className="text-sm text-slate-700 dark:text-slate-300">
                {option.hint}
              </span>
            </span>
          </label>
        );
      })}
      <p id={errorId} role="alert" className="text-sm text-red-800 dark:text-red-200">
        {error}
      </p>
    </fieldset>
  );
}

import { t } from '@lingui/core/macro';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button, focusRing } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { cn } from '../../components/ui/cn';
import { Field } from '../../components/ui/field';
import { PasswordField } from '../../components/ui/password-field';
import { statusOf } from '../../lib/api-error';
import { useCurrentUser } from '../../lib/auth';
import { adminErrorMessage } from './api';
import {
  lockingVariable,
  saveSettings,
  sectionFieldErrors,
  settingsKeys,
  type SettingPath,
  type Settings,
  type SettingsChange,
  type SettingsSection,
} from './settings-api';
import type { SectionSpec, SettingField } from './settings-sections';

/** A field's value on the form: the text typed, or a checkbox's state. */
type Draft = Record<string, string | boolean>;

const WHOLE_NUMBER = 'Enter a whole number.';

function split(path: SettingPath): [SettingsSection, string] {
  const [section, field] = path.split('.') as [SettingsSection, string];
  return [section, field];
}

/** The value in force, as the form shows it ('' for the password: it is never sent back). */
function shown(settings: Settings, path: SettingPath): string | boolean {
  const [section, field] = split(path);
  const value = (settings[section] as Record<string, unknown>)[field];
  if (typeof value === 'boolean') return value;
  return value === undefined || value === null ? '' : String(value);
}

function draftOf(settings: Settings, spec: SectionSpec): Draft {
  return Object.fromEntries(spec.fields.map((f) => [f.path, shown(settings, f.path)]));
}

/**
 * One section of the settings as a card with its own form: its fields, with the value in force; a
 * field the server's environment sets is read-only and says which variable sets it. Save sends
 * only the fields that changed (none: nothing is sent); the server's field errors show under
 * their fields, the first one focused. The SMTP password is written only: empty keeps the saved
 * one, "Remove the saved password" clears it. `children` come after the form (the test email).
 */
export function SettingsSectionCard({
  spec,
  settings,
  children,
}: {
  spec: SectionSpec;
  settings: Settings;
  children?: ReactNode;
}) {
  const headingId = useId();
  const viewer = useCurrentUser()?.id ?? '';
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(settings, spec));
  const [clearPassword, setClearPassword] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<SettingPath, string>>>({});
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const inputs = useRef<Partial<Record<SettingPath, HTMLInputElement | null>>>({});

  function focusFirst(paths: readonly SettingPath[]) {
    const first = spec.fields.find((f) => paths.includes(f.path));
    if (first) inputs.current[first.path]?.focus();
  }

  /** What changed, as the server takes it, or the fields the form itself refuses. */
  function changes(): {
    change: SettingsChange;
    count: number;
    refused: Partial<Record<SettingPath, string>>;
  } {
    const change: Record<string, Record<string, unknown>> = {};
    const refused: Partial<Record<SettingPath, string>> = {};
    let count = 0;
    for (const field of spec.fields) {
      if (lockingVariable(settings, field.path)) continue;
      const [section, name] = split(field.path);
      const value = draft[field.path];
      let next: unknown;
      if (field.kind === 'password') {
        if (clearPassword) next = '';
        else if (value) next = value;
        else continue;
      } else if (field.kind === 'toggle') {
        if (value === shown(settings, field.path)) continue;
        next = value;
      } else {
        const text = String(value).trim();
        if (text === shown(settings, field.path)) continue;
        if (field.kind === 'number') {
          if (!/^\d{1,9}$/.test(text)) {
            refused[field.path] = WHOLE_NUMBER;
            continue;
          }
          next = Number(text);
        } else next = text;
      }
      (change[section] ??= {})[name] = next;
      count += 1;
    }
    return { change: change as SettingsChange, count, refused };
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving) return;
    setNotice(null);
    setFailure(null);
    const { change, count, refused } = changes();
    setErrors(refused);
    if (Object.keys(refused).length > 0) {
      focusFirst(Object.keys(refused) as SettingPath[]);
      return;
    }
    if (count === 0) {
      setNotice(t`Nothing to save: no field was changed.`);
      return;
    }
    setSaving(true);
    try {
      const answer = await saveSettings(change);
      queryClient.setQueryData(settingsKeys.settings(viewer), answer);
      setDraft(draftOf(answer, spec));
      setClearPassword(false);
      setNotice(spec.saved);
    } catch (err) {
      const found: Partial<Record<SettingPath, string>> = {};
      if (statusOf(err) === 400) {
        for (const field of spec.fields) {
          const [section, name] = split(field.path);
          const message = sectionFieldErrors(err, section)[name];
          if (message) found[field.path] = message;
        }
      }
      setErrors(found);
      const paths = Object.keys(found) as SettingPath[];
      if (paths.length > 0) {
        setFailure(t`Nothing was saved. Check the fields marked below.`);
        focusFirst(paths);
      } else {
        setFailure(adminErrorMessage(err, t`Failed to save the settings. Please try again.`));
      }
    } finally {
      setSaving(false);
    }
  }

  const anyEditable = spec.fields.some((f) => !lockingVariable(settings, f.path));
  return (
    <Card id={spec.id} aria-labelledby={headingId} className="flex scroll-mt-4 flex-col gap-4">
      <div className="flex flex-col gap-1">
        <h2 id={headingId} className="text-lg font-semibold">
          {spec.title}
        </h2>
        <p className="text-sm text-slate-700 dark:text-slate-300">{spec.description}</p>
      </div>
      {/* Not named: the card is the region named by its heading; a second landmark of the same
          name would only repeat it. */}
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4">
        <LiveMessage tone="success">{notice}</LiveMessage>
        <LiveMessage tone="error">{failure}</LiveMessage>
        {spec.fields.map((field) => (
          <SettingInput
            key={field.path}
            field={field}
            value={draft[field.path] ?? ''}
            locked={lockingVariable(settings, field.path)}
            error={errors[field.path]}
            clearPassword={clearPassword}
            onClearPassword={setClearPassword}
            inputRef={(el) => {
              inputs.current[field.path] = el;
            }}
            onChange={(value) => setDraft((d) => ({ ...d, [field.path]: value }))}
          />
        ))}
        {anyEditable ? (
          <div>
            <Button type="submit" className="w-full sm:w-auto sm:min-w-44" disabled={saving}>
              {saving ? t`Saving...` : spec.save}
            </Button>
          </div>
        ) : null}
      </form>
      {children}
    </Card>
  );
}

/** "Set by the server's environment (SMTP_URL)." before the field's own hint. */
function hintOf(field: SettingField, locked: string | undefined): string | undefined {
  const note = locked ? t`Set by the server's environment (${locked}).` : undefined;
  return [note, field.hint].filter(Boolean).join(' ') || undefined;
}

function SettingInput({
  field,
  value,
  locked,
  error,
  clearPassword,
  onClearPassword,
  inputRef,
  onChange,
}: {
  field: SettingField;
  value: string | boolean;
  locked: string | undefined;
  error: string | undefined;
  clearPassword: boolean;
  onClearPassword: (clear: boolean) => void;
  inputRef: (el: HTMLInputElement | null) => void;
  onChange: (value: string | boolean) => void;
}) {
  const hint = hintOf(field, locked);
  if (field.kind === 'toggle') {
    return (
      <Toggle
        label={field.label}
        hint={hint}
        checked={value === true}
        disabled={locked !== undefined}
        error={error}
        inputRef={inputRef}
        onChange={onChange}
      />
    );
  }
  if (field.kind === 'password') {
    return (
      <div className="flex flex-col gap-2">
        <PasswordField
          ref={inputRef}
          label={field.label}
          autoComplete="new-password"
          placeholder={locked ? t`Set by the environment` : t`Unchanged`}
          hint={
            hintOf(field, locked) ??
            t`Never shown. Leave it empty to keep the saved password, or type a new one.`
          }
          readOnly={locked !== undefined || clearPassword}
          value={clearPassword ? '' : String(value)}
          error={error ?? null}
          onChange={(e) => onChange(e.target.value)}
        />
        {locked ? null : (
          <Toggle
            label={t`Remove the saved password`}
            checked={clearPassword}
            onChange={(clear) => onClearPassword(clear === true)}
          />
        )}
      </div>
    );
  }
  return (
    <Field
      ref={inputRef}
      label={field.label}
      type={field.kind === 'number' ? 'text' : field.kind}
      inputMode={field.kind === 'number' ? 'numeric' : undefined}
      autoComplete={field.autoComplete ?? 'off'}
      spellCheck={false}
      hint={hint}
      readOnly={locked !== undefined}
      className={locked ? 'bg-slate-100 dark:bg-slate-800' : undefined}
      value={String(value)}
      error={error ?? null}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

function Toggle({
  label,
  hint,
  checked,
  disabled,
  error,
  inputRef,
  onChange,
}: {
  label: string;
  hint?: string;
  checked: boolean;
  disabled?: boolean;
  error?: string;
  inputRef?: (el: HTMLInputElement | null) => void;
  onChange: (value: boolean) => void;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className="flex flex-col gap-1">
      <label
        htmlFor={id}
        className="flex min-h-11 items-center gap-3 text-sm font-medium text-slate-800 dark:text-slate-200"
      >
        <input
          ref={inputRef}
          id={id}
          type="checkbox"
          className={cn('size-5 shrink-0 accent-blue-700 dark:accent-blue-400', focusRing)}
          checked={checked}
          disabled={disabled}
          aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
          aria-invalid={error ? true : undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        {label}
      </label>
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} role="alert" className="text-sm text-red-800 dark:text-red-200">
          {error}
        </p>
      ) : null}
    </div>
  );
}

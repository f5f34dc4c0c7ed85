import { t } from '@lingui/core/macro';
import { useId, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { QueryStatus } from '../../components/ui/query-status';
import { PageSections } from '../../components/ui/page-sections';
import { ScreenHeader, usePageTitle } from '../../components/ui/screen';
import { isEmail } from '../../lib/email-rule';
import { useCurrentUser } from '../../lib/auth';
import { useFieldSubmit } from '../../lib/use-field-submit';
import { adminErrorMessage } from './api';
import { SelectField } from './select-field';
import { sendTestEmail, settingsQueryOptions, TEST_TEMPLATES } from './settings-api';
import { SettingsSectionCard } from './settings-section-card';
import { settingsSections } from './settings-sections';

/**
 * Admin → Settings: the app's settings (PocketBase's settings API) in sections, each saved on its
 * own, with "On this page" links to each section (beside them on a wide screen). Fields the server's environment
 * sets are shown read-only, naming the variable. The Mail Server section sends a test email.
 */
export function SettingsScreen() {
  usePageTitle(t`App Settings`);
  const viewer = useCurrentUser()?.id ?? '';
  const settings = useQuery(settingsQueryOptions(viewer));

  return (
    <>
      <ScreenHeader
        title={t`App Settings`}
        description={t`Changes apply at once, on every server, and are recorded in the security log.`}
      />
      <PageSections label={t`Settings sections`}>
        {settings.isSuccess ? (
          settingsSections().map((section) => (
            <SettingsSectionCard key={section.id} spec={section} settings={settings.data}>
              {section.id === 'mail-server' ? <TestEmailForm /> : null}
            </SettingsSectionCard>
          ))
        ) : (
          <Card>
            <QueryStatus
              query={settings}
              loading={t`Loading settings...`}
              failed={t`We couldn't load the settings. ${adminErrorMessage(settings.error, t`Please try again later.`)}`}
            />
          </Card>
        )}
      </PageSections>
    </>
  );
}

/** "Send Test Email": one mail of a chosen kind to an address, through the settings in force. */
function TestEmailForm() {
  const headingId = useId();
  const user = useCurrentUser();
  const [email, setEmail] = useState(user?.email ?? '');
  const [template, setTemplate] = useState<string>(TEST_TEMPLATES()[0].value);
  const [notice, setNotice] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const {
    onSubmit,
    busy: sending,
    problem,
    failure,
  } = useFieldSubmit({
    field: 'email',
    input,
    onStart: () => setNotice(null),
    check: () => {
      const to = email.trim();
      return !to
        ? t`Enter an email address.`
        : isEmail(to)
          ? null
          : t`Enter a valid email address.`;
    },
    submit: async () => {
      const to = email.trim();
      await sendTestEmail(to, template);
      setNotice(t`Test email queued to ${to}. It should arrive in a moment.`);
    },
    failure: (err) => adminErrorMessage(err, t`Failed to send the test email. Please try again.`),
  });

  return (
    <form
      noValidate
      onSubmit={onSubmit}
      aria-labelledby={headingId}
      className="flex flex-col gap-4 border-t border-slate-200 pt-4 dark:border-slate-700"
    >
      <div className="flex flex-col gap-1">
        <h3 id={headingId} className="font-semibold">
          {t`Send a Test Email`}
        </h3>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {t`Sent with the saved settings, like any other mail. Its links open nothing.`}
        </p>
      </div>
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{failure}</LiveMessage>
      <Field
        ref={input}
        id={`${headingId}-email`}
        label={t`Send to`}
        type="email"
        autoComplete="off"
        value={email}
        error={problem}
        onChange={(e) => setEmail(e.target.value)}
      />
      <SelectField
        label={t`Which mail`}
        options={TEST_TEMPLATES()}
        value={template}
        onChange={(e) => setTemplate(e.target.value)}
      />
      <div>
        <Button
          type="submit"
          variant="secondary"
          className="w-full sm:w-auto sm:min-w-44"
          disabled={sending}
        >
          {sending ? t`Sending...` : t`Send Test Email`}
        </Button>
      </div>
    </form>
  );
}

import { t } from '@lingui/core/macro';
import { useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { statusOf } from '../../lib/api-error';
import { fieldText } from '../../lib/messages';
import { isEmail } from '../../lib/email-rule';
import { useFormSubmit } from '../../lib/use-form-submit';
import { adminErrorMessage, adminKeys, inviteByEmail } from './api';

/** A refused invitation in words: the server's word on the address, or on the request. */
function inviteFailure(err: unknown): string {
  if (statusOf(err) === 429) {
    return t`Too many invitations were sent. Please wait a while and try again.`;
  }
  return fieldText(err, 'email') ?? adminErrorMessage(err, t`We couldn't send the invite.`);
}

/**
 * Members → Invite by Email: the server makes a new invite code of the operator's and mails the
 * address a sign-up link with it. The operator is the inviter (in the Invite Tree, and the code is
 * in their own list until it is used).
 */
export function InviteEmailCard({ viewer }: { viewer: string }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const form = useFormSubmit({
    onStart: () => setSent(null),
    check: () => {
      const value = email.trim();
      if (!value) return { field: 'email' as const, message: t`Please enter an email address.` };
      if (!isEmail(value)) {
        return { field: 'email' as const, message: t`Please enter a valid email address.` };
      }
      return null;
    },
    fields: { email: emailRef },
    submit: async () => {
      const answer = await inviteByEmail(email.trim());
      setSent(answer.email);
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: adminKeys.of(viewer) });
    },
    failure: inviteFailure,
  });

  return (
    <TitledCard
      title={t`Invite by Email`}
      description={t`Sends a sign-up link with a new invite code of yours: you are their inviter.`}
    >
      <form
        noValidate
        aria-label={t`Invite by email`}
        onSubmit={form.onSubmit}
        className="flex flex-col gap-3 sm:flex-row sm:items-start"
      >
        <div className="grow">
          <Field
            ref={emailRef}
            label={t`Email address`}
            name="invite-email"
            type="email"
            autoComplete="off"
            spellCheck={false}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={form.error}
          />
        </div>
        <Button type="submit" className="sm:mt-6 sm:min-w-36" disabled={form.busy}>
          {form.busy ? t`Sending...` : t`Send Invite`}
        </Button>
      </form>
      <LiveMessage tone="success">{sent ? t`Invite sent to ${sent}.` : null}</LiveMessage>
    </TitledCard>
  );
}

import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useId, useRef, useState } from 'react';
import { Avatar } from '../../components/avatar';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import type { UserRecord } from '../../lib/session';
import { useFormSubmit } from '../../lib/use-form-submit';
import { checkPhoto, PHOTO_TYPES, profileErrorMessage, updateProfile } from './api';
import { checkName } from './name-rule';

/** What happens to the photo on Save: kept, replaced by a chosen file, or removed. */
type PhotoChange = { kind: 'keep' } | { kind: 'new'; file: File; url: string } | { kind: 'remove' };

/**
 * Settings → Profile: the member's name and photo, as the people next to them in the invite tree
 * see them. A chosen photo shows at once as a preview; Save Profile sends the name and the change
 * of photo together (a new one as a file: the SDK sends a multipart form).
 */
export function ProfileCard({ user }: { user: UserRecord }) {
  const [name, setName] = useState(user.name);
  const [photo, setPhoto] = useState<PhotoChange>({ kind: 'keep' });
  const [photoError, setPhotoError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const choose = useRef<HTMLButtonElement>(null);
  const refs = { name: useRef<HTMLInputElement>(null) };
  const hintId = useId();

  // A preview's object URL lives while it is shown.
  useEffect(() => {
    if (photo.kind !== 'new') return;
    return () => URL.revokeObjectURL(photo.url);
  }, [photo]);

  const form = useFormSubmit({
    onStart: () => setPhotoError(null),
    check: () => checkName(name),
    fields: refs,
    submit: async () => {
      const saved = await updateProfile(user.id, {
        name,
        ...(photo.kind === 'new' ? { photo: photo.file } : {}),
        ...(photo.kind === 'remove' ? { photo: null } : {}),
      });
      setName(saved.name);
      setPhoto({ kind: 'keep' });
      return 'saved' as const;
    },
    failure: profileErrorMessage,
  });

  function onChosen(file: File | undefined) {
    if (!file) return;
    const problem = checkPhoto(file);
    setPhotoError(problem);
    if (problem) return;
    setPhoto({ kind: 'new', file, url: URL.createObjectURL(file) });
  }

  const shown = photo.kind === 'new' || (photo.kind === 'keep' && user.avatar !== '');
  const unsaved = photo.kind !== 'keep' || name.trim() !== user.name;

  return (
    <TitledCard
      title={t`Profile`}
      description={t`Your name and photo. The person who invited you, the people you invite and the operators see them.`}
    >
      <form
        noValidate
        onSubmit={form.onSubmit}
        aria-label={t`Profile`}
        className="flex flex-col gap-4"
      >
        <LiveMessage tone="error">{form.error ?? photoError}</LiveMessage>
        <LiveMessage tone="success">
          {form.done && !unsaved ? t`Your profile has been saved.` : null}
        </LiveMessage>
        <div className="flex flex-wrap items-center gap-4">
          <Avatar
            member={photo.kind === 'remove' ? { ...user, avatar: '' } : { ...user, name }}
            size="lg"
            src={photo.kind === 'new' ? photo.url : undefined}
            alt={
              photo.kind === 'new'
                ? t`The photo you chose (not saved yet)`
                : shown
                  ? t`Your photo`
                  : t`No photo: your initials`
            }
          />
          <div className="flex flex-col gap-2">
            <div className="flex flex-wrap gap-2">
              <Button
                ref={choose}
                variant="secondary"
                aria-describedby={hintId}
                disabled={form.busy}
                onClick={() => fileInput.current?.click()}
              >
                {shown ? t`Change Photo` : t`Choose Photo`}
              </Button>
              {shown ? (
                <Button
                  variant="secondary"
                  disabled={form.busy}
                  onClick={() => {
                    setPhotoError(null);
                    setPhoto(photo.kind === 'new' ? { kind: 'keep' } : { kind: 'remove' });
                    choose.current?.focus();
                  }}
                >
                  <Trans>Remove Photo</Trans>
                </Button>
              ) : null}
            </div>
            <p id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
              {photo.kind === 'new'
                ? t`Chosen: ${photo.file.name}. Save Profile to use it.`
                : photo.kind === 'remove'
                  ? t`Save Profile to remove your photo.`
                  : t`A JPEG, PNG, WebP or GIF image of up to 5 MB.`}
            </p>
            <input
              ref={fileInput}
              type="file"
              accept={PHOTO_TYPES.join(',')}
              hidden
              onChange={(event) => {
                onChosen(event.target.files?.[0]);
                // The same file may be chosen again after a change of mind.
                event.target.value = '';
              }}
            />
          </div>
        </div>
        <Field
          ref={refs.name}
          label={t`Name`}
          name="name"
          type="text"
          autoComplete="name"
          hint={t`Up to 100 characters. Leave it empty for none.`}
          value={name}
          aria-invalid={form.invalid === 'name' || undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <div>
          <Button type="submit" className="min-w-40" disabled={form.busy}>
            {form.busy ? t`Saving...` : t`Save Profile`}
          </Button>
        </div>
      </form>
    </TitledCard>
  );
}

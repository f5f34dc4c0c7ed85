import { useRef } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveMessage } from '../components/ui/alert';
import { fakeServer, pbError } from '../test/fake-server';
import { findAnnounced } from '../test/render-app';
import { pb } from './pb';
import { setConfirmer } from './reauth';
import { useFormSubmit } from './use-form-submit';

/** A form whose failure text knows nothing of "Confirm it's you" (as a new form might). */
function SaveForm() {
  const refs = { name: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () => null,
    fields: refs,
    submit: () => pb.send('/api/save', { method: 'POST' }),
    failure: () => 'Failed to save. Please try again.',
  });
  return (
    <form noValidate onSubmit={form.onSubmit} aria-label="Save">
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <input ref={refs.name} aria-label="Name" />
      <button type="submit">Save</button>
    </form>
  );
}

describe('useFormSubmit', () => {
  let stopConfirming = () => {};
  afterEach(() => stopConfirming());

  it('an action the member did not confirm ends with the quiet note, not the form’s failure', async () => {
    fakeServer({ 'POST /api/save': () => pbError(403, "Confirm it's you to continue.") });
    stopConfirming = setConfirmer(() => Promise.resolve(false));
    const user = userEvent.setup();
    render(<SaveForm />);

    await user.click(screen.getByRole('button', { name: 'Save' }));
    const note = await findAnnounced('Cancelled. Nothing was changed.', 'status');
    expect(note.closest('[role="alert"]')).toBeNull();
    expect(screen.queryByText('Failed to save. Please try again.')).toBeNull();

    // A real failure is still the form's own, and an error.
    fakeServer({ 'POST /api/save': () => pbError(500, 'Something went wrong.') });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await findAnnounced('Failed to save. Please try again.', 'alert');
    expect(screen.queryByText('Cancelled. Nothing was changed.')).toBeNull();
  });
});

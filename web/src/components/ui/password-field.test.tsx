import { useState } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PasswordField } from './password-field';
import { expectFocus } from '../../test/render-app';

function SignInForm({ onSubmit }: { onSubmit: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <PasswordField label="Password" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="submit">Sign In</button>
    </form>
  );
}

function setup() {
  const submitted = vi.fn();
  const user = userEvent.setup();
  render(<SignInForm onSubmit={submitted} />);
  return { user, submitted, password: screen.getByLabelText('Password') };
}

describe('PasswordField', () => {
  it('Show reveals what was typed and Hide hides it again, without submitting the form', async () => {
    const { user, submitted, password } = setup();
    await user.type(password, 'correct horse');
    expect(password).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show' }));
    expect(password).toHaveAttribute('type', 'text');
    expect(password).toHaveValue('correct horse');
    await user.click(screen.getByRole('button', { name: 'Hide' }));
    expect(password).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Show' })).toBeInTheDocument();
    expect(submitted).not.toHaveBeenCalled();
  });

  it('keeps focus in the field and the caret where it was', async () => {
    const { user, password } = setup();
    await user.type(password, 'correct horse');
    (password as HTMLInputElement).setSelectionRange(3, 3);
    await user.click(screen.getByRole('button', { name: 'Show' }));
    await expectFocus(password);
    expect(password).toHaveProperty('selectionStart', 3);
    await user.keyboard('X');
    expect(password).toHaveValue('corXrect horse');
  });

  it('Alt+F8 in the field toggles it, and the button adds no Tab stop', async () => {
    const { user, submitted, password } = setup();
    await user.type(password, 'secret words');
    expect(password).toHaveAttribute('aria-keyshortcuts', 'Alt+F8');
    await user.keyboard('{Alt>}{F8}{/Alt}');
    expect(password).toHaveAttribute('type', 'text');
    await user.keyboard('{Alt>}{F8}{/Alt}');
    expect(password).toHaveAttribute('type', 'password');
    await user.tab();
    await expectFocus(screen.getByRole('button', { name: 'Sign In' }));
    expect(submitted).not.toHaveBeenCalled();
  });

  it('the field keeps its one label, the button its own name', () => {
    render(<PasswordField label="Password" defaultValue="" />);
    expect(screen.getAllByLabelText('Password')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Show' })).toHaveAttribute(
      'aria-controls',
      screen.getByLabelText('Password').id,
    );
  });

  it('a read-only field has no button', () => {
    render(<PasswordField label="SMTP Password" readOnly value="" />);
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.getByLabelText('SMTP Password')).toHaveAttribute('type', 'password');
  });
});

import { describe, expect, it } from 'vitest';
import type { SecurityEvent } from './api';
import { describeEvent, eventTypes } from './describe-event';

function event(type: string, detail: Record<string, unknown> = {}): SecurityEvent {
  return {
    id: 'event0000000001',
    created: '2026-11-25 09:00:00.000Z',
    type,
    ip: '203.0.113.7',
    userAgent: '',
    outcome: 'success',
    detail,
  };
}

describe("an operator's settings and backup actions in words", () => {
  it('names the settings changed (never a value), the backup, and where a test email went', () => {
    expect(
      describeEvent(
        event('admin_settings_changed', { actor: 'op1', fields: 'smtp.host, meta.appName' }),
      ),
    ).toBe('Settings changed: smtp.host, meta.appName');
    expect(describeEvent(event('admin_test_mail', { to: 'desk@example.org' }))).toBe(
      'Test email sent to desk@example.org',
    );
    // The Mail page's test email names no address: it went to the operator.
    expect(describeEvent(event('admin_test_mail'))).toBe('Test email sent');
    const backup = { actor: 'op1', backup: 'nightly.zip' };
    expect(describeEvent(event('admin_backup_created', backup))).toBe(
      'Backup created: nightly.zip',
    );
    expect(describeEvent(event('admin_backup_uploaded', backup))).toBe(
      'Backup uploaded: nightly.zip',
    );
    expect(describeEvent(event('admin_backup_downloaded', backup))).toBe(
      'Backup downloaded: nightly.zip',
    );
    expect(describeEvent(event('admin_backup_deleted', backup))).toBe(
      'Backup deleted: nightly.zip',
    );
    expect(describeEvent(event('admin_backup_restored', backup))).toBe(
      'Backup restored: nightly.zip',
    );
  });

  it('offers each of them in the Security Log’s type filter', () => {
    const words = Object.fromEntries(eventTypes().map((t) => [t.type, t.words]));
    expect(words).toMatchObject({
      admin_settings_changed: 'Settings changed',
      admin_test_mail: 'Test email sent',
      admin_backup_created: 'Backup created',
      admin_backup_uploaded: 'Backup uploaded',
      admin_backup_downloaded: 'Backup downloaded',
      admin_backup_deleted: 'Backup deleted',
      admin_backup_restored: 'Backup restored',
    });
  });
});

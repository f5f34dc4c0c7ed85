import fs from 'node:fs';
import path from 'node:path';
import type PocketBase from 'pocketbase';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { jwtPayload } from '../support/http.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * A name and a face: PocketBase's `name` and `avatar` on the member's record, set through the
 * official SDK (JSON, or multipart/form-data when a File is attached), and the avatar served as a
 * protected file: a short-lived file token in its URL, and only to the member, the member who
 * invited them, the members they invited and operators (docs/decisions/0050).
 */

const FILE_TOKEN = '/api/files/token';
const MAX_BYTES = 5 * 1024 * 1024;

/** A small real image, made here: `type` png or jpeg, one colour. */
function image(type: 'png' | 'jpeg', width = 64, height = 48): Promise<Buffer> {
  const made = sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } },
  });
  return (type === 'png' ? made.png() : made.jpeg()).toBuffer();
}

const file = (data: Buffer | string, name: string, type = 'image/png') =>
  new File([data], name, { type });

const fieldError = (code: string, message: string, params?: Record<string, number>) => ({
  data: { avatar: params ? { code, message, params } : { code, message } },
  message: MSG.update,
  status: 400,
});

describe.each(DATABASES)('name and avatar on %s', (db) => {
  let t: TestServer;
  let operator: User;
  /** Invited by the initial user (an operator). */
  let inviter: User;
  /** Signed up with one of the inviter's codes. */
  let invitee: User;
  /** Also invited by the initial user: the inviter's "sibling", no relation to them. */
  let stranger: User;

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    inviter = await t.verifiedUser();
    stranger = await t.verifiedUser();
    const codes = await t.get(PATHS.codes, inviter.token);
    const code = (codes.body.codes as { code: string }[])[0]!.code;
    const email = uniqueEmail('invitee');
    const password = strongPassword();
    const signedUp = await t.signUp(code, email, password);
    expect(signedUp.status, signedUp.text).toBe(200);
    invitee = { email, password, id: signedUp.body.id, token: '', record: signedUp.body };
    invitee.token = await t.tokenFor(invitee);
  });
  afterAll(() => t?.close());

  const sdkOf = (user: User) => sdkClient(t.url, user.token, user.record);

  /** Fetches a file's URL as an <img> would (no Authorization header). */
  async function fetchFile(url: string) {
    const res = await fetch(url);
    return {
      status: res.status,
      headers: res.headers,
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  }

  /** The URL the SDK makes for the member's avatar, with a fresh file token of `viewer`. */
  async function avatarUrl(viewer: PocketBase, record: Record<string, unknown>, thumb?: string) {
    const token = await viewer.files.getToken();
    return viewer.files.getURL(record, record.avatar as string, { token, thumb });
  }

  /** What the storage holds for a member: `name` or `name@100x100` per stored file or thumb. */
  async function stored(userId: string): Promise<string[]> {
    if (db === 'postgres') {
      const rows = await withDatabase(t, (d) =>
        d
          .selectFrom('member_files')
          .select(['name', 'variant'])
          .where('user_id', '=', userId)
          .execute(),
      );
      return rows.map((r) => (r.variant ? `${r.name}@${r.variant}` : r.name)).sort();
    }
    const dir = path.join(t.dataDir, 'files', 'users', userId);
    if (!fs.existsSync(dir)) return [];
    const found: string[] = [];
    for (const entry of fs.readdirSync(dir)) {
      if (!entry.startsWith('thumbs_')) found.push(entry);
      else {
        const name = entry.slice('thumbs_'.length);
        for (const thumb of fs.readdirSync(path.join(dir, entry))) {
          found.push(`${name}@${thumb.slice(0, -name.length - 1)}`);
        }
      }
    }
    return found.sort();
  }

  it('a name is set at sign-up and by the record update: trimmed; too long or with control characters refused', async () => {
    const code = await t.newCode();
    const email = uniqueEmail('named');
    const password = strongPassword();
    const made = await sdkClient(t.url).collection('users').create({
      email,
      password,
      passwordConfirm: password,
      inviteCode: code,
      name: '  Zoë Ďurová ',
    });
    expect(made.name).toBe('Zoë Ďurová');
    expect(made.avatar).toBe('');
    // The console's members list shows it too.
    const operator = await t.tokenFor(await t.initialUser());
    const listed = await t.get(`/api/admin/members?q=${encodeURIComponent(email)}`, operator);
    expect(listed.body.items.map((m: { name: string }) => m.name)).toEqual(['Zoë Ďurová']);

    const pb = sdkOf(stranger);
    const set = await pb.collection('users').update(stranger.id, { name: '\tAda Lovelace  ' });
    expect(set.name).toBe('Ada Lovelace');
    // 100 characters (emoji count as one each) is the most.
    const hundred = '🦊'.repeat(100);
    expect((await pb.collection('users').update(stranger.id, { name: hundred })).name).toBe(
      hundred,
    );

    const tooLong = await sdkError(
      pb.collection('users').update(stranger.id, { name: 'x'.repeat(101) }),
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.response).toEqual({
      data: {
        name: {
          code: 'validation_max_text_constraint',
          message: 'Must be no more than 100 character(s).',
          params: { max: 100 },
        },
      },
      message: MSG.update,
      status: 400,
    });
    for (const name of ['Ada\u0007', 'Ada\nLovelace', 'Ada\u202eecalevoL', 'Ada\u0085']) {
      const refused = await sdkError(pb.collection('users').update(stranger.id, { name }));
      expect(refused.response, JSON.stringify(name)).toEqual({
        data: { name: { code: 'validation_invalid_format', message: 'Invalid value format.' } },
        message: MSG.update,
        status: 400,
      });
    }
    // Refused at sign-up the same way; nothing was made.
    const signUp = await t.signUp(await t.newCode(), uniqueEmail('long'), strongPassword(), {
      name: 'y'.repeat(101),
    });
    expect(signUp.status).toBe(400);
    expect(signUp.body.data.name.code).toBe('validation_max_text_constraint');
    expect((await pb.collection('users').getOne(stranger.id)).name).toBe(hundred);

    // null clears it, as PocketBase does; a missing name leaves it.
    await pb.collection('users').update(stranger.id, { emailVisibility: false });
    expect((await pb.collection('users').getOne(stranger.id)).name).toBe(hundred);
    expect((await pb.collection('users').update(stranger.id, { name: null })).name).toBe('');
  });

  it('an avatar uploaded through the SDK (multipart) is stored under a PocketBase file name and served to its owner; thumbs are made once and kept', async () => {
    const pb = sdkOf(inviter);
    const png = await image('png', 64, 48);
    const record = await pb.collection('users').update(inviter.id, {
      name: 'Ines',
      emailVisibility: true,
      avatar: file(png, 'My Holiday Photo.PNG'),
    });
    expect(record.name).toBe('Ines');
    expect(record.emailVisibility).toBe(true);
    expect(record.avatar).toMatch(/^my_holiday_photo_[a-z0-9]{10}\.png$/);
    inviter.record = record;

    const original = await fetchFile(await avatarUrl(pb, record));
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect(original.headers.get('content-disposition')).toBe(`inline; filename=${record.avatar}`);
    expect(original.headers.get('content-security-policy')).toContain('sandbox');
    const meta = await sharp(original.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 64, 48]);

    const thumb = await fetchFile(await avatarUrl(pb, record, '100x100'));
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-disposition')).toBe(
      `inline; filename=100x100_${record.avatar}`,
    );
    const thumbMeta = await sharp(thumb.bytes).metadata();
    expect([thumbMeta.width, thumbMeta.height]).toEqual([100, 100]);
    const wide = await sharp(
      (await fetchFile(await avatarUrl(pb, record, '200x0'))).bytes,
    ).metadata();
    expect([wide.width, wide.height]).toEqual([200, 150]);
    // A size the field does not offer: the original, as PocketBase answers it (and nothing kept).
    const other = await fetchFile(await avatarUrl(pb, record, '123x123'));
    expect((await sharp(other.bytes).metadata()).width).toBe(64);
    expect(await stored(inviter.id)).toEqual(
      [record.avatar, `${record.avatar}@100x100`, `${record.avatar}@200x0`].sort(),
    );
    // Asked again, the kept thumb is served.
    expect((await fetchFile(await avatarUrl(pb, record, '100x100'))).bytes).toEqual(thumb.bytes);

    const download = await fetchFile(`${await avatarUrl(pb, record)}&download=1`);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename=${record.avatar}`,
    );
  });

  it('the avatar is seen by its owner, their inviter, their invitees and operators; anyone else gets 404', async () => {
    const owner = inviter.record;
    expect(owner.avatar).not.toBe('');
    for (const [who, viewer] of [
      ['owner', inviter],
      ['invitee', invitee],
      ['operator (and inviter)', operator],
    ] as const) {
      const res = await fetchFile(await avatarUrl(sdkOf(viewer), owner));
      expect(res.status, who).toBe(200);
    }
    // The invitee's avatar, seen by the member who invited them.
    const inviteePb = sdkOf(invitee);
    const mine = await inviteePb.collection('users').update(invitee.id, {
      avatar: file(await image('jpeg'), 'me.jpg', 'image/jpeg'),
    });
    expect(mine.avatar).toMatch(/^me[a-z0-9]{10}_[a-z0-9]{10}\.jpg$/);
    expect((await fetchFile(await avatarUrl(sdkOf(inviter), mine))).status).toBe(200);
    expect((await fetchFile(await avatarUrl(sdkOf(stranger), mine))).status).toBe(404);

    const refused = await fetchFile(await avatarUrl(sdkOf(stranger), owner));
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.bytes.toString())).toEqual({
      data: {},
      message: MSG[404],
      status: 404,
    });
    const url = (token: string) =>
      `${t.url}/api/files/users/${inviter.id}/${owner.avatar}${token ? `?token=${token}` : ''}`;
    // A guest (no token, a made-up one), and an auth token where a file token belongs.
    expect((await fetchFile(url(''))).status).toBe(404);
    expect((await fetchFile(url('not.a.token'))).status).toBe(404);
    expect((await fetchFile(url(inviter.token))).status).toBe(404);
    // Another collection, or a file the record does not name.
    const token = await sdkOf(inviter).files.getToken();
    expect(
      (await t.get(`/api/files/other/${inviter.id}/${owner.avatar}?token=${token}`)).status,
    ).toBe(404);
    expect(
      (await fetchFile(`${t.url}/api/files/users/${inviter.id}/x_0123456789.png?token=${token}`))
        .status,
    ).toBe(404);
  });

  it('a file token: only for a signed-in member, three minutes, no email in it, and it ends with its session', async () => {
    const guest = await t.post(FILE_TOKEN, {});
    expect(guest.status).toBe(401);
    const member = await t.verifiedUser();
    const res = await t.post(FILE_TOKEN, {}, member.token);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['token']);
    const claims = jwtPayload(res.body.token);
    expect(claims.type).toBe('file');
    expect(claims.id).toBe(member.id);
    expect(claims.email).toBeUndefined();
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(170);
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(180);

    const pb = sdkOf(member);
    const record = await pb.collection('users').update(member.id, {
      avatar: file(await image('png'), 'face.png'),
    });
    const url = `${t.url}/api/files/users/${member.id}/${record.avatar}?token=${res.body.token}`;
    expect((await fetchFile(url)).status).toBe(200);
    expect((await t.post(PATHS.logout, {}, member.token)).status).toBe(204);
    expect((await fetchFile(url)).status).toBe(404);
  });

  it('bad files get PocketBase field errors on avatar and change nothing: not an image, a .png that is text, too large; a whole form over 6 MB is 413', async () => {
    const pb = sdkOf(inviter);
    const before = (await pb.collection('users').getOne(inviter.id)).avatar;
    const allowed = 'image/jpeg, image/png, image/gif, image/webp';

    const text = await sdkError(
      pb.collection('users').update(inviter.id, {
        name: 'Not Applied',
        avatar: file('just some notes\n', 'notes.txt', 'text/plain'),
      }),
    );
    expect(text.response).toEqual(
      fieldError(
        'validation_invalid_mime_type',
        `"notes.txt" mime type must be one of: ${allowed}.`,
      ),
    );
    const fake = await sdkError(
      pb.collection('users').update(inviter.id, { avatar: file('I am not a PNG', 'fake.png') }),
    );
    expect(fake.response).toEqual(
      fieldError(
        'validation_invalid_mime_type',
        `"fake.png" mime type must be one of: ${allowed}.`,
      ),
    );
    // PNG's first bytes, then nothing an image decoder can read.
    const broken = Buffer.concat([(await image('png')).subarray(0, 40), Buffer.alloc(200, 7)]);
    const damaged = await sdkError(
      pb.collection('users').update(inviter.id, { avatar: file(broken, 'broken.png') }),
    );
    expect(damaged.response.data.avatar.code).toBe('validation_invalid_mime_type');

    const large = await sdkError(
      pb.collection('users').update(inviter.id, {
        avatar: file(Buffer.alloc(MAX_BYTES + 1, 1), 'huge.png'),
      }),
    );
    expect(large.response).toEqual(
      fieldError(
        'validation_file_size_limit',
        `Failed to upload huge.png - the maximum allowed file size is ${MAX_BYTES} bytes.`,
        { maxSize: MAX_BYTES },
      ),
    );
    const now = await pb.collection('users').getOne(inviter.id);
    expect(now.avatar).toBe(before);
    expect(now.name).not.toBe('Not Applied');
    expect((await stored(inviter.id)).filter((f) => !f.includes('@'))).toEqual([before]);

    // Beyond the form's limit the request is refused whole, before it is read.
    const boundary = 'gatehouse-test-boundary';
    const raw = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="big.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      Buffer.alloc(7 * 1024 * 1024, 1),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const tooBig = await t.request('PATCH', PATHS.record(inviter.id), {
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        Authorization: inviter.token,
      },
      raw,
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ data: {}, message: MSG[413], status: 413 });
    // A form that cannot be read (no boundary in it, or cut short): PocketBase's loading error.
    for (const [type, text] of [
      ['multipart/form-data; boundary=zzz', '{"name":"JSON, not a form"}'],
      ['multipart/form-data', '--zzz\r\n'],
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda`,
      ],
    ]) {
      const res = await t.request('PATCH', PATHS.record(inviter.id), {
        headers: { 'Content-Type': type!, Authorization: inviter.token },
        raw: text!,
      });
      expect(res.status, `${type} ${res.text}`).toBe(400);
      expect(res.body).toEqual({ data: {}, message: MSG.load, status: 400 });
    }

    // A text value that is not the current file, or an object where a file name belongs.
    const named = await sdkError(
      pb.collection('users').update(inviter.id, { avatar: 'other.png' }),
    );
    expect(named.response).toEqual(
      fieldError('validation_invalid_file', 'Invalid new files: [other.png].'),
    );
    const object = await t.patch(
      PATHS.record(inviter.id),
      { avatar: { name: 'x.png' } },
      inviter.token,
    );
    expect(object.status).toBe(400);
    expect(object.body).toEqual({ data: {}, message: MSG.load, status: 400 });
    expect((await pb.collection('users').getOne(inviter.id)).avatar).toBe(before);
  });

  it('a JPEG with GPS in its EXIF comes back without any metadata, upright', async () => {
    const jpeg = await sharp({
      create: { width: 40, height: 20, channels: 3, background: { r: 10, g: 120, b: 200 } },
    })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExifMerge({
        IFD0: { Make: 'TestCam' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
      })
      .toBuffer();
    const sent = await sharp(jpeg).metadata();
    expect(sent.exif?.toString('latin1')).toContain('TestCam');
    // The GPS IFD's pointer (tag 0x8825, little-endian here) is in the EXIF sent.
    expect(sent.exif?.includes(Buffer.from([0x25, 0x88]))).toBe(true);
    expect(sent.orientation).toBe(6);

    const member = await t.verifiedUser();
    const pb = sdkOf(member);
    const record = await pb.collection('users').update(member.id, {
      avatar: file(jpeg, 'trip.jpeg', 'image/jpeg'),
    });
    expect(record.avatar).toMatch(/^trip_[a-z0-9]{10}\.jpg$/);
    const served = await fetchFile(await avatarUrl(pb, record));
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(served.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(served.bytes.toString('latin1')).not.toContain('TestCam');
    // Orientation 6 (turn 90° clockwise) was applied before it went: 40×20 is now 20×40.
    expect([meta.width, meta.height]).toEqual([20, 40]);
  });

  it("removing the avatar (null through the SDK, or '') empties the field and deletes the file and its thumbs", async () => {
    const member = await t.verifiedUser();
    const pb = sdkOf(member);
    const first = await pb.collection('users').update(member.id, {
      avatar: file(await image('png'), 'one.png'),
    });
    expect((await fetchFile(await avatarUrl(pb, first, '100x100'))).status).toBe(200);
    // A new upload replaces the old file (and its thumb).
    const second = await pb.collection('users').update(member.id, {
      avatar: file(await image('jpeg'), 'two.jpg', 'image/jpeg'),
    });
    expect(second.avatar).not.toBe(first.avatar);
    expect(await stored(member.id)).toEqual([second.avatar]);
    expect((await fetchFile(await avatarUrl(pb, first))).status).toBe(404);

    const removed = await pb.collection('users').update(member.id, { avatar: null });
    expect(removed.avatar).toBe('');
    expect(await stored(member.id)).toEqual([]);
    expect((await fetchFile(await avatarUrl(pb, second))).status).toBe(404);

    const third = await pb.collection('users').update(member.id, {
      avatar: file(await image('png'), 'three.png'),
    });
    // Sending the current name keeps it; '' removes it.
    expect((await pb.collection('users').update(member.id, { avatar: third.avatar })).avatar).toBe(
      third.avatar,
    );
    const viaJson = await t.patch(PATHS.record(member.id), { avatar: '' }, member.token);
    expect(viaJson.status, viaJson.text).toBe(200);
    expect(viaJson.body.avatar).toBe('');
    expect(await stored(member.id)).toEqual([]);
  });

  it("the export holds the name and the avatar's file name; deleting the account deletes its files", async () => {
    const member = await t.verifiedUser();
    const pb = sdkOf(member);
    const record = await pb.collection('users').update(member.id, {
      name: 'Exported Name',
      avatar: file(await image('png'), 'portrait.png'),
    });
    await fetchFile(await avatarUrl(pb, record, '100x100'));
    expect(await stored(member.id)).toHaveLength(2);

    const exported = await t.get(PATHS.exportData, member.token);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.record.name).toBe('Exported Name');
    expect(exported.body.record.avatar).toBe(record.avatar);

    expect(await pb.collection('users').delete(member.id)).toBe(true);
    expect(await stored(member.id)).toEqual([]);
    if (db === 'sqlite') {
      expect(fs.existsSync(path.join(t.dataDir, 'files', 'users', member.id))).toBe(false);
    }
  });

  it('on SQLite the files are private: folders 0700, files 0600', async () => {
    if (db !== 'sqlite') return;
    const member = await t.verifiedUser();
    const record = await sdkOf(member)
      .collection('users')
      .update(member.id, {
        avatar: file(await image('png'), 'private.png'),
      });
    const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);
    const base = path.join(t.dataDir, 'files');
    expect(mode(base)).toBe('700');
    expect(mode(path.join(base, 'users', member.id))).toBe('700');
    expect(mode(path.join(base, 'users', member.id, record.avatar))).toBe('600');
  });
});

describe('avatar uploads are limited per member', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'on' } });
  });
  afterAll(() => t?.close());

  it('30 uploads an hour; the 31st is 429 and changes nothing; other changes still go through', async () => {
    const member = await t.verifiedUser();
    const pb = sdkClient(t.url, member.token, member.record);
    const png = await image('png', 8, 8);
    let last = '';
    for (let i = 0; i < 30; i++) {
      last = (await pb.collection('users').update(member.id, { avatar: file(png, `a${i}.png`) }))
        .avatar;
    }
    const refused = await sdkError(
      pb.collection('users').update(member.id, { avatar: file(png, 'one-more.png') }),
    );
    expect(refused.status).toBe(429);
    expect(refused.response).toEqual({ data: {}, message: MSG[429], status: 429 });
    const now = await pb.collection('users').update(member.id, { name: 'Still Me' });
    expect(now.avatar).toBe(last);
    expect(now.name).toBe('Still Me');
  });
});

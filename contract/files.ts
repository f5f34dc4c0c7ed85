import { ErrorEnvelope, type RouteSchema, SIGNED_IN, Type, type Static } from './schema.js';

/** Members' files, PocketBase's files API (server/src/accounts/file-routes.ts). */
const tags = ['Files'];

export const FileTokenAnswer = Type.Object({
  token: Type.String({ description: 'a file token, valid for 3 minutes and while the session is' }),
});
export type FileTokenAnswer = Static<typeof FileTokenAnswer>;

export const fileToken = {
  summary: 'A short-lived token for protected files (the SDK’s `pb.files.getToken()`)',
  tags,
  security: SIGNED_IN,
  response: { 200: FileTokenAnswer, 401: ErrorEnvelope },
} satisfies RouteSchema;

export const downloadFile = {
  summary: "A member's avatar, or a thumb of it (protected: `?token=` a file token)",
  description:
    'Served to the member, the member who invited them, the members they invited, and operators; to anyone ' +
    'else, and without a valid token, 404. `collection` is `users` or its id `_pb_users_auth_`. A thumb size ' +
    'the avatar field does not offer serves the original, as PocketBase does.',
  tags,
  params: Type.Object({
    collection: Type.String(),
    recordId: Type.String(),
    filename: Type.String(),
  }),
  querystring: Type.Object({
    token: Type.Optional(Type.String({ description: 'a file token (POST /api/files/token)' })),
    thumb: Type.Optional(
      Type.String({
        description: 'a thumb size the avatar field offers (docs/api.md), e.g. `100x100`',
      }),
    ),
    download: Type.Optional(
      Type.String({ description: '`1` or `true`: Content-Disposition attachment' }),
    ),
  }),
  response: {
    200: Type.Unsafe<Buffer>({
      type: 'string',
      format: 'binary',
      description: 'the image (image/jpeg, image/png, image/webp or image/gif)',
    }),
    404: ErrorEnvelope,
  },
} satisfies RouteSchema;

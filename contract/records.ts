import { DateText, Id, Language, Type, type Static } from './schema.js';

/** A member as PocketBase shows a users record: never the password hash or tokenKey. */
export const UserRecord = Type.Object(
  {
    id: Id(),
    collectionId: Type.String(),
    collectionName: Type.String(),
    email: Type.Optional(
      Type.String({ description: "the member's own record, or when emailVisibility is on" }),
    ),
    emailVisibility: Type.Boolean(),
    verified: Type.Boolean(),
    name: Type.String({ description: "the member's name, up to 100 characters; '' when unset" }),
    avatar: Type.String({
      description:
        "the avatar's file name ('' when none): GET /api/files/users/{id}/{avatar}?token=…",
    }),
    language: Language({ description: 'the language of the mail the member gets' }),
    isInitialUser: Type.Boolean(),
    inviteCode: Type.String({ description: 'the invite code the member signed up with' }),
    created: DateText(),
    updated: DateText(),
  },
  {},
);
export type UserRecord = Static<typeof UserRecord>;

/** A sign-in's answer: an auth token for a new session, and the member. */
export const AuthAnswer = Type.Object({ token: Type.String(), record: UserRecord });
export type AuthAnswer = Static<typeof AuthAnswer>;

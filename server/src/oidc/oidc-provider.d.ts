/**
 * The parts of `oidc-provider` (8.x ships no types) that Gatehouse and its tests use: the provider
 * (oidc/provider.ts), its models as the adapter and the interaction routes see them, and the test
 * suite's upstream provider (server/test/support/oidc.ts).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload extends Record<string, unknown> {
    accountId?: string;
    clientId?: string;
    grantId?: string;
    uid?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    getOIDCScope(): string;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  export interface InteractionPrompt {
    name: string;
    reasons: string[];
    details: Record<string, unknown>;
  }

  export interface Interaction {
    uid: string;
    exp: number;
    prompt: InteractionPrompt;
    params: Record<string, unknown>;
    session?: { accountId: string; uid?: string };
    grantId?: string;
    returnTo: string;
    lastSubmission?: Record<string, unknown>;
    result?: Record<string, unknown>;
    save(ttl: number): Promise<string>;
  }

  export interface Session {
    jti: string;
    uid: string;
    accountId?: string;
    authorizations?: Record<string, { sid?: string; grantId?: string }>;
    destroy(): Promise<void>;
  }

  export interface ClientModel {
    clientId: string;
    clientName?: string;
    backchannelLogoutUri?: string;
    backchannelLogout(sub: string, sid: string): Promise<void>;
  }

  export interface KoaContext {
    req: IncomingMessage;
    res: ServerResponse;
    method: string;
    path: string;
    status: number;
    type: string;
    body: unknown;
    host: string;
    set(name: string, value: string): void;
    oidc: {
      provider: Provider;
      client?: ClientModel;
      session?: Session & { accountId?: string };
      result?: Record<string, unknown>;
      route?: string;
      entities: Record<string, unknown>;
    };
  }

  export type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: Middleware): void;
    on(event: string, listener: (...args: never[]) => void): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    Interaction: { find(id: string): Promise<Interaction | undefined> };
    Session: { findByUid(uid: string): Promise<Session | undefined> };
    Client: { find(id: string): Promise<ClientModel | undefined> };
  }

  export const errors: Record<string, new (description?: string) => Error>;
}

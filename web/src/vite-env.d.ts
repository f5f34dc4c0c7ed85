/** A `.po` catalogue, compiled to its messages on import by Lingui's Vite plugin. */
declare module '*.po' {
  import type { Messages } from '@lingui/core';
  export const messages: Messages;
}

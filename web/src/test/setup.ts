import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { chooseLanguage, loadCatalogue, startI18n } from '../lib/i18n';

// Every screen's texts, in English (jsdom's language), as a signed-in member's would be.
await startI18n();
await Promise.all([loadCatalogue('errors'), loadCatalogue('member'), loadCatalogue('console')]);

// A screen's lazily loaded parts (the header's places, Query, a catalogue) can take more than
// the default second on a busy machine; a `findBy` still returns as soon as its element is there.
configure({ asyncUtilTimeout: 5000 });

// jsdom lays nothing out, so it cannot scroll: the router's scroll restoration calls scrollTo on
// every navigation, which jsdom answers with a "Not implemented" line each time.
window.scrollTo = () => {};

afterEach(async () => {
  cleanup();
  // A test that speaks German leaves the next one in English (and nothing chosen on the device).
  await chooseLanguage('en');
  window.localStorage.clear();
  window.sessionStorage.clear();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

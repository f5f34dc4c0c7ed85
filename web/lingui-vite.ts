import { fileURLToPath } from 'node:url';
import { transformAsync } from '@babel/core';
import { getConfig } from '@lingui/conf';
import { lingui } from '@lingui/vite-plugin';
import type { Plugin, PluginOption } from 'vite';

const configPath = fileURLToPath(new URL('./lingui.config.ts', import.meta.url));

/**
 * Lingui's macros (`t`, `<Trans>`, `msg`, `plural`) turned into catalogue lookups at build time,
 * by Lingui's own Babel plugin, and the `.po` catalogues compiled on import. Babel runs only on the
 * files that import a macro; Vite's own transform does the rest. Production builds keep only each
 * text's id in the code: its words come from the catalogue (docs/decisions/0071).
 */
export function linguiPlugins(options: { failOnMissing?: boolean } = {}): PluginOption[] {
  const linguiConfig = getConfig({ configPath, skipValidation: true });
  let production = false;
  const macros: Plugin = {
    name: 'gatehouse-lingui-macros',
    enforce: 'pre',
    configResolved(config) {
      production = config.isProduction;
    },
    async transform(code, id) {
      if (!/\.[jt]sx?$/.test(id) || id.includes('/node_modules/')) return null;
      if (!code.includes('@lingui/') || !code.includes('/macro')) return null;
      const result = await transformAsync(code, {
        filename: id,
        babelrc: false,
        configFile: false,
        sourceMaps: true,
        parserOpts: { plugins: ['typescript', 'jsx'] },
        plugins: [
          ['@lingui/babel-plugin-lingui-macro', { linguiConfig, stripMessageField: production }],
        ],
      });
      return result?.code ? { code: result.code, map: result.map } : null;
    },
  };
  return [macros, lingui({ configPath, failOnMissing: options.failOnMissing ?? false })];
}

// Bundle entry.js with esbuild into the site's vendored Plotly.js (see README.md).
// Usage: node build.mjs OUTFILE   (run by build.sh inside a scratch copy of this folder)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const require = createRequire(import.meta.url);
const TRACES = ['scatter', 'bar', 'heatmap', 'scatterpolar'];

const out = process.argv[2];
if (!out) {
    console.error('usage: node build.mjs OUTFILE');
    process.exit(2);
}
const pinned = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).devDependencies;
const plotlyVersion = require('plotly.js/package.json').version;
const esbuildVersion = require('esbuild/package.json').version;
if (plotlyVersion !== pinned['plotly.js'] || esbuildVersion !== pinned.esbuild) {
    console.error(`installed plotly.js ${plotlyVersion} / esbuild ${esbuildVersion} differ from package.json; run npm ci`);
    process.exit(1);
}
const license = readFileSync(require.resolve('plotly.js/LICENSE'), 'utf8').trim();

const banner = [
    `/*! BloomBench leaderboard: custom Plotly.js bundle`,
    ` * plotly.js v${plotlyVersion}, traces: ${TRACES.join(', ')} (scatter comes with plotly.js/lib/core)`,
    ` * Built by scripts/plotly-bundle/build.sh: esbuild ${esbuildVersion} on scripts/plotly-bundle/entry.js,`,
    ` *   esbuild entry.js --bundle --minify --format=iife --target=es2016 --loader:.css=empty`,
    ` *   --define:global=window --define:define.amd=false --legal-comments=eof`,
    ` * Do not edit: change entry.js and rebuild.`,
    ` *`,
    ` * plotly.js license:`,
    ...license.split('\n').map((line) => (line ? ` * ${line}` : ' *')),
    ` */`,
].join('\n');

await esbuild.build({
    entryPoints: [new URL('./entry.js', import.meta.url).pathname],
    outfile: out,
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2016', // as plotly.js's own esbuild-config.js
    define: { global: 'window', 'define.amd': 'false' }, // as plotly.js's own esbuild-config.js
    loader: { '.css': 'empty' }, // registry.js imports maplibre-gl's CSS, used only by map traces
    legalComments: 'eof', // keeps the bundled dependencies' license comments
    banner: { js: banner },
    logLevel: 'info',
});

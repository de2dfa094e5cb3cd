const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// tsc emits only JavaScript; n8n also loads each node's icons and its codex (<Node>.node.json) from dist.
const copy = (folder, pattern) => () =>
	src(path.resolve(folder, '**', pattern), { encoding: false }).pipe(dest(path.resolve('dist', folder)));

task('build:icons', parallel(copy('nodes', '*.{png,svg}'), copy('nodes', '*.node.json'), copy('credentials', '*.{png,svg}')));

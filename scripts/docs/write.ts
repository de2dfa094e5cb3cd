/**
 * `npm run docs`: rewrites the generated parts of the documentation (figures from the results
 * files, the options reference from the node descriptions), leaving the rest as written.
 * `npm run docs -- --check` writes nothing and exits 1 naming the first difference per file
 * (test/unit/docs/generated.test.ts runs the same check in `npm test`). `npm run bench` (full run)
 * and `npm run test:queue` call it after writing their results.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import { figure } from './figures';
import { firstDifference, render } from './markers';
import { optionsReference } from './options-reference';
import { loadSources, REPO } from './sources';
import { BLOCKS } from './tables';

/** The files with generated parts. */
export const GENERATED_DOCS = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docs/options.md', 'docs/queue-mode.md', 'docs/webhook-memory.md'];

/** Each file as it should be: [file, written, generated]. */
export function generatedDocs(): Array<[string, string, string]> {
	const sources = loadSources();
	const resolvers = {
		figure: (key: string) => figure(sources, key),
		block: (name: string) => {
			if (name.startsWith('options:')) return optionsReference(name.slice('options:'.length));
			const build = BLOCKS[name];
			if (!build) throw new Error(`no block "${name}" in scripts/docs/tables.ts`);
			return build(sources);
		},
	};
	return GENERATED_DOCS.map((file) => {
		const written = fs.readFileSync(path.join(REPO, file), 'utf8');
		try {
			return [file, written, render(written, resolvers)];
		} catch (err) {
			throw new Error(`${file}: ${(err as Error).message}`);
		}
	});
}

/** Rewrite what differs; returns the files changed. */
export function writeDocs(): string[] {
	const changed: string[] = [];
	for (const [file, written, generated] of generatedDocs()) {
		if (written === generated) continue;
		fs.writeFileSync(path.join(REPO, file), generated);
		changed.push(file);
	}
	return changed;
}

/** After a run wrote new results: rewrite the documentation's figures, and say what changed (never throws). */
export function refreshDocs(say: (line: string) => void): void {
	try {
		const changed = writeDocs();
		say(changed.length ? `rewrote the figures of ${changed.join(', ')} from the new results (commit them with the results)` : 'the documentation already quotes these results');
	} catch (err) {
		say(`could not rewrite the documentation's figures (${(err as Error).message}); run npm run docs`);
	}
}

if (require.main === module) {
	if (process.argv.includes('--check')) {
		const stale = generatedDocs().filter(([, written, generated]) => written !== generated);
		for (const [file, written, generated] of stale) console.log(`${file} differs from what npm run docs writes, at ${firstDifference(written, generated)}`);
		process.exitCode = stale.length ? 1 : 0;
	} else {
		const changed = writeDocs();
		console.log(changed.length ? `rewrote ${changed.join(', ')}` : 'the generated parts are up to date');
	}
}

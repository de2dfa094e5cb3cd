/**
 * The pack's import graph, read from the sources: every relative import (type-only ones too) of
 * every `.ts` file under nodes/ and credentials/. What docs/architecture.md measures with it: the
 * import cycles (there must be none: two modules that cannot be read apart) and what a file
 * reaches, in files and lines (`npx ts-node --transpile-only scripts/imports.ts [file]`, by default
 * the payout create operation, descriptions apart).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const IMPORT = /(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]/g;

export type ImportGraph = Map<string, string[]>;

function sources(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(full);
		return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
	});
}

/** File → the files it imports, paths relative to the repository. */
export function importGraph(dirs: string[] = ['nodes', 'credentials']): ImportGraph {
	const graph: ImportGraph = new Map();
	for (const file of dirs.flatMap((dir) => sources(path.join(ROOT, dir)))) {
		const imports: string[] = [];
		for (const [, target] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
			const base = path.resolve(path.dirname(file), target);
			const hit = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
			if (hit) imports.push(path.relative(ROOT, hit));
		}
		graph.set(path.relative(ROOT, file), imports);
	}
	return graph;
}

/** The strongly connected groups of more than one file (Tarjan): each is an import cycle. */
export function importCycles(graph: ImportGraph): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (file: string): void => {
		index.set(file, counter);
		low.set(file, counter++);
		stack.push(file);
		onStack.add(file);
		for (const next of graph.get(file) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
			} else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
		}
		if (low.get(file) !== index.get(file)) return;
		const group: string[] = [];
		let member: string | undefined;
		do {
			member = stack.pop() as string;
			onStack.delete(member);
			group.push(member);
		} while (member !== file);
		if (group.length > 1) cycles.push(group.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return cycles;
}

/** Every file a relative import chain from `start` reaches (`start` included), the descriptions/ folders left out when asked; with their line counts. */
export function reach(graph: ImportGraph, start: string, options: { withoutDescriptions?: boolean } = {}): { files: string[]; lines: number } {
	const seen = new Set<string>();
	const pending = [start];
	while (pending.length > 0) {
		const file = pending.pop() as string;
		if (seen.has(file) || (options.withoutDescriptions && file.includes('/descriptions/'))) continue;
		seen.add(file);
		pending.push(...(graph.get(file) ?? []));
	}
	const files = [...seen].sort();
	return { files, lines: files.reduce((sum, file) => sum + linesOf(file), 0) };
}

/** Lines as `wc -l` counts them. */
function linesOf(file: string): number {
	return (fs.readFileSync(path.join(ROOT, file), 'utf8').match(/\n/g) ?? []).length;
}

export const PAYOUT_CREATE = 'nodes/Money/actions/payment/create.operation.ts';
/** The dispatch every create goes through before its operation file (issue 48 counts it with the create path). */
export const DISPATCH = ['nodes/Money/Money.node.ts', 'nodes/Money/actions/router.ts', 'nodes/Money/actions/node.type.ts'];

/** A set of files' lines as `wc -l` counts them, split into comment, blank and code lines. */
export function lineKinds(files: string[]): { lines: number; comment: number; blank: number; code: number } {
	let comment = 0;
	let blank = 0;
	let lines = 0;
	for (const file of files) {
		const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
		for (const line of text.split('\n').slice(0, linesOf(file))) {
			lines++;
			if (/^\s*$/.test(line)) blank++;
			else if (/^\s*(\/\/|\/\*|\*)/.test(line)) comment++;
		}
	}
	return { lines, comment, blank, code: lines - comment - blank };
}

if (require.main === module) {
	const graph = importGraph();
	const start = process.argv[2] ?? PAYOUT_CREATE;
	const { files, lines } = reach(graph, start, { withoutDescriptions: true });
	for (const file of files) console.log(`${String(linesOf(file)).padStart(5)} ${file}`);
	console.log(`${start} reaches ${files.length} files, ${lines} lines (descriptions apart)`);
	if (start === PAYOUT_CREATE) {
		const all = [...new Set([...DISPATCH, ...files])];
		const kinds = lineKinds(all);
		console.log(`with the dispatch (${DISPATCH.join(', ')}): ${all.length} files, ${kinds.lines} lines: ${kinds.code} code, ${kinds.comment} comment, ${kinds.blank} blank`);
	}
	const cycles = importCycles(graph);
	console.log(cycles.length === 0 ? 'no import cycle in nodes/ and credentials/' : `import cycles:\n${cycles.map((cycle) => `  ${cycle.join(' <-> ')}`).join('\n')}`);
	process.exitCode = cycles.length === 0 ? 0 : 1;
}

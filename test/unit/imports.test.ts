import { DISPATCH, importCycles, importGraph, lineKinds, PAYOUT_CREATE, reach } from '../../scripts/imports';

/** docs/architecture.md, "What the create path is made of": the figures it gives are held here. */
describe('the import graph of nodes/ and credentials/', () => {
	const graph = importGraph();

	it('has no import cycle (type-only imports count: a cycle is two modules that cannot be read apart)', () => {
		expect(importCycles(graph)).toEqual([]);
	});

	it('a payout create reaches at most 21 files, descriptions apart (the agent mandate and its list read among them)', () => {
		expect(reach(graph, PAYOUT_CREATE, { withoutDescriptions: true }).files.length).toBeLessThanOrEqual(21);
	});

	it('splits the lines it counts into code, comment and blank lines, which sum to what wc -l counts', () => {
		const { files, lines } = reach(graph, PAYOUT_CREATE, { withoutDescriptions: true });
		const kinds = lineKinds(files);
		expect(kinds.lines).toBe(lines);
		expect(kinds.code + kinds.comment + kinds.blank).toBe(lines);
		expect(kinds.code).toBeGreaterThan(kinds.comment);
		expect(lineKinds(DISPATCH).lines).toBeGreaterThan(0);
	});

	it('finds a cycle where there is one', () => {
		const cyclic = new Map([
			['a.ts', ['b.ts']],
			['b.ts', ['c.ts']],
			['c.ts', ['a.ts']],
			['d.ts', ['a.ts']],
		]);
		expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
	});
});

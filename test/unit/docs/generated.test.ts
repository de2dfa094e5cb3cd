import { figure, QUEUE_FIGURES } from '../../../scripts/docs/figures';
import { firstDifference, markersIn, render } from '../../../scripts/docs/markers';
import { loadSources } from '../../../scripts/docs/sources';
import { BLOCKS } from '../../../scripts/docs/tables';
import { generatedDocs } from '../../../scripts/docs/write';

describe('generated documentation (npm run docs): the figures and the options reference cannot drift', () => {
	it.each(generatedDocs().map(([file, written, generated]) => [file, written, generated]))(
		'%s is what npm run docs writes from the results and the descriptions',
		(file, written, generated) => {
			if (written !== generated) throw new Error(`${file} differs from what \`npm run docs\` writes, at ${firstDifference(written, generated)}\nRun npm run docs (after npm run build) and commit the result.`);
		},
	);

	it('every queue figure and every block is quoted somewhere (no dead entries)', () => {
		const used = generatedDocs().map(([, written]) => markersIn(written));
		const figures = new Set(used.flatMap((u) => u.figures));
		const blocks = new Set(used.flatMap((u) => u.blocks));
		expect(Object.keys(QUEUE_FIGURES).filter((name) => !figures.has(`queue:${name}`))).toEqual([]);
		expect(Object.keys(BLOCKS).filter((name) => !blocks.has(name))).toEqual([]);
	});

	it('a changed result changes the text: a bench figure and a queue figure, inline and in a table', () => {
		const sources = loadSources();
		const doc = 'x <!--fig:bench:per_call_vs_floor-->old<!--/fig--> y <!--fig:queue:tokensPerRevocation-->old<!--/fig-->\n<!--figures:bench-summary-->\nold\n<!--/figures-->\n';
		const resolvers = (s: typeof sources) => ({ figure: (key: string) => figure(s, key), block: (name: string) => BLOCKS[name](s) });
		const before = render(doc, resolvers(sources));
		const changed = structuredClone(sources);
		changed.bench.figures.find((f) => f.name === 'per_call_vs_floor')!.value = 9.99;
		changed.queue.scenarios[Object.keys(changed.queue.scenarios).find((n) => /^token requests/.test(n))!].result.perRevocation = 42;
		const after = render(doc, resolvers(changed));
		expect(before).not.toEqual(after);
		expect(after).toContain('<!--fig:bench:per_call_vs_floor-->9.99 x<!--/fig-->');
		expect(after).toContain('<!--fig:queue:tokensPerRevocation-->42<!--/fig-->');
		expect(after).toContain('| `per_call_vs_floor` | Money node Charge Get vs a bare keep-alive client, per call | 9.99 x (');
	});

	it("a changed result of npm run bench's queue group changes the text: two workers vs one", () => {
		const changed = structuredClone(loadSources());
		changed.queueThroughput.ratioTwoVsOne = { median: 1.42, min: 1.3, max: 1.5, runs: 3 };
		expect(figure(changed, 'queue-throughput:twoVsOneWorkers')).toBe('1.42 x (3 rounds, 1.3 .. 1.5)');
	});

	it('a changed result of bench:webhook-server changes the text: a figure and a per-event count', () => {
		const sources = loadSources();
		const doc = '<!--fig:server:webhook_ingestion_vs_webhook_node_sqlite_memory_fresh-->old<!--/fig--> <!--fig:server:count:postgres:money:isolatesBuilt-->old<!--/fig-->';
		const changed = structuredClone(sources);
		changed.server.figures.find((f) => f.name === 'webhook_ingestion_vs_webhook_node_sqlite_memory_fresh')!.value = 0.987;
		changed.server.counts.postgres.money.isolatesBuilt = 7;
		expect(render(doc, { figure: (key) => figure(changed, key), block: () => '' })).toBe(
			'<!--fig:server:webhook_ingestion_vs_webhook_node_sqlite_memory_fresh-->0.987 x<!--/fig--> <!--fig:server:count:postgres:money:isolatesBuilt-->7<!--/fig-->',
		);
	});
});

describe('scripts/docs/markers.ts', () => {
	const resolvers = { figure: (key: string) => `<${key}>`, block: (name: string) => `rows of ${name}` };

	it('replaces what stands between markers, and nothing else', () => {
		expect(render('a <!--fig:k-->1<!--/fig--> b\n<!--figures:t-->\nstale\nlines\n<!--/figures-->\nc', resolvers)).toBe(
			'a <!--fig:k--><k><!--/fig--> b\n<!--figures:t-->\nrows of t\n<!--/figures-->\nc',
		);
	});

	it('leaves markers shown as examples in code spans, and never spans lines inline', () => {
		const text = 'use `<!--fig:KEY-->…<!--/fig-->` to quote\n<!--fig:a-->x\n<!--/fig-->';
		expect(render(text, resolvers)).toBe(text);
	});

	it('an unknown key fails, naming it', () => {
		const sources = loadSources();
		expect(() => figure(sources, 'bench:no_such_figure')).toThrow('bench/results/latest.json has no figure "no_such_figure"');
		expect(() => figure(sources, 'queue:noSuch')).toThrow('queue:noSuch is not in QUEUE_FIGURES');
		expect(() => figure(sources, 'queue-throughput:noSuch')).toThrow('unknown figure key "queue-throughput:noSuch"');
		expect(() => figure(sources, 'n8n:9.9.x')).toThrow('unknown figure key "n8n:9.9.x"');
		expect(() => figure(sources, 'server:no_such_figure')).toThrow('bench/results/webhook-server.json has no figure "no_such_figure"');
		expect(() => figure(sources, 'server:count:sqlite:money:nothing')).toThrow('has no count sqlite:money:nothing');
	});
});

import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { readWindow } from '../../../nodes/transport/listRead';
import { MAX_INSTANT_ROUNDS, newWindow, windowStep } from '../../../nodes/transport/listWindow';
import { seededRandom as random } from '../../../sandbox/domain/random';

/*
 * Property test of the list reader (nodes/transport/listWindow.ts, listRead.ts) over generated
 * lists, served by a model of the Money API's list route that orders transactions by created_at
 * only, as docs/decisions.md#d6 allows: ties in another order on each request (reversed on every
 * other one, or shuffled), bounds that include or exclude their own instant, created_at to the
 * millisecond or to the second, bursts larger than a page at one instant, ties at page boundaries,
 * and transactions listed late or changing status between two requests.
 */

const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const ROUTE = '/money/v1/payout';
const DAY = Date.parse('2024-04-02T00:00:00Z');

interface Row {
	reference: string;
	at: number;
	status: string;
}

interface ApiModel {
	rows: Row[];
	/** Ties reversed on every other request, shuffled on each, or reversed on every other page (page 2 never shows what page 1 does not). */
	ties: 'alternating' | 'shuffled' | 'byPage';
	exclusive: boolean;
	toSecond: boolean;
	/** Called before each request is answered, with its number (0 first). */
	beforeAnswer?: (request: number) => void;
	/** Page 1 whatever page is asked (a gateway that drops the query's page). */
	ignoresPage?: boolean;
	/** Rows counted in pagination.total that no page shows. */
	hidden?: Set<string>;
	requests: number;
	/** Per request answered: its query and the references its window held then. */
	log: Array<{ qs: IDataObject; window: string[] }>;
}

function writeTime(ms: number, toSecond: boolean): string {
	const iso = new Date(ms).toISOString();
	return toSecond ? `${iso.slice(0, 19)}Z` : iso;
}

const instantOf = (model: ApiModel, row: Row) => (model.toSecond ? Math.floor(row.at / 1000) * 1000 : row.at);

/** The rows a query's window holds, as the model's bounds (including their instant or not) select them. */
function inside(model: ApiModel, qs: IDataObject): Row[] {
	const bound = (name: string) => (typeof qs[name] === 'string' ? Date.parse(qs[name] as string) : undefined);
	const start = bound('start_date');
	const end = bound('end_date');
	return model.rows.filter((row) => {
		const at = instantOf(model, row);
		if (start !== undefined && (model.exclusive ? at <= start : at < start)) return false;
		if (end !== undefined && (model.exclusive ? at >= end : at > end)) return false;
		return qs.status === undefined || row.status === qs.status;
	});
}

function answer(model: ApiModel, qs: IDataObject, pick: () => number): IDataObject {
	model.beforeAnswer?.(model.requests);
	const request = model.requests++;
	const rows = inside(model, qs);
	model.log.push({ qs, window: rows.map((row) => row.reference) });
	const page = model.ignoresPage ? 1 : Number(qs.page);
	const flip = model.ties === 'byPage' ? page % 2 === 0 : request % 2 === 1;
	const keyed = rows.filter((row) => !model.hidden?.has(row.reference)).map((row, index) => ({ row, tie: model.ties === 'shuffled' ? pick() : flip ? -index : index }));
	keyed.sort((a, b) => instantOf(model, b.row) - instantOf(model, a.row) || a.tie - b.tie);
	const limit = Number(qs.limit);
	const data = keyed.slice((page - 1) * limit, page * limit).map(({ row }) => ({
		reference: row.reference,
		created_at: writeTime(row.at, model.toSecond),
		status: { code: 0, label: row.status },
	}));
	return { success: true, data, pagination: { page, limit, total: rows.length, pages: Math.ceil(rows.length / limit) } };
}

function contextFor(model: ApiModel, pick: () => number): IExecuteFunctions {
	return {
		getNode: () => node,
		getExecutionCancelSignal: () => undefined,
		logger: { debug: () => {}, warn: () => {} },
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => ({
				statusCode: 200,
				headers: {},
				body: answer(model, options.qs as IDataObject, pick),
			}),
		},
	} as unknown as IExecuteFunctions;
}

/** A day of payouts: some spread out, bursts at single instants (some larger than a page), ties straddling page boundaries. */
function generate(pick: () => number): Row[] {
	const rows: Row[] = [];
	let next = 0;
	const add = (at: number) => rows.push({ reference: `pay_${(next++).toString(36)}`, at, status: pick() < 0.5 ? 'PENDING' : 'COMPLETED' });
	const spread = Math.floor(pick() * 400);
	for (let index = 0; index < spread; index++) add(DAY + Math.floor(pick() * 86_000_000));
	const bursts = Math.floor(pick() * 5);
	for (let burst = 0; burst < bursts; burst++) {
		const at = DAY + Math.floor(pick() * 86_000_000);
		const size = [2, 3, 99, 100, 101, 150, 250, 350][Math.floor(pick() * 8)];
		for (let index = 0; index < size; index++) add(at);
	}
	return rows;
}

const period = { start: '2024-04-02T00:00:00.000Z', end: '2024-04-03T00:00:00.000Z' };
const words = { transactions: 'payouts', window: 'in the period' };
const newModel = (rows: Row[], pick: () => number): ApiModel => ({
	rows,
	ties: pick() < 0.5 ? 'alternating' : 'shuffled',
	exclusive: pick() < 0.3,
	toSecond: pick() < 0.3,
	requests: 0,
	log: [],
});

describe('reading a list window whole (property test over generated lists)', () => {
	const cases = Array.from({ length: 240 }, (_, seed) => seed + 1);

	it.each(cases)('case %i: returns every transaction of the period once, as the API held it when it last counted them', async (seed) => {
		const pick = random(seed);
		const model = newModel(generate(pick), pick);
		const late = Math.floor(pick() * 4);
		const lastChange = Math.floor(pick() * 12);
		model.beforeAnswer = (request) => {
			// Transactions listed late inside the period (and after it), statuses changing.
			if (request === 0 || request > lastChange) return;
			for (let index = 0; index < late; index++) {
				model.rows.push({ reference: `late_${request}_${index}`, at: DAY + Math.floor(pick() * 86_400_000 * 1.1), status: 'COMPLETED' });
			}
			for (const row of model.rows) if (pick() < 0.05) row.status = row.status === 'PENDING' ? 'FAILED' : row.status;
		};

		const read = await readWindow.call(contextFor(model, pick), ROUTE, {}, period, words);

		const references = read.envelopes.map((envelope) => envelope.reference as string);
		const counts = model.log.filter((entry) => entry.qs.end_date === period.end && entry.qs.page === 1);
		const counted = counts[counts.length - 1].window;
		const atEnd = inside(model, { start_date: period.start, end_date: period.end }).map((row) => row.reference);
		// Every transaction the last count counted, each once; beside them only those that entered the period after it.
		expect({ distinct: new Set(references).size === references.length, total: read.total }).toEqual({ distinct: true, total: counted.length });
		expect(counted.filter((reference) => !references.includes(reference))).toEqual([]);
		expect(references.filter((reference) => !atEnd.includes(reference))).toEqual([]);
	});

	it.each(cases.slice(0, 40))('case %i: fails, naming how many it could not read, when the API counts more than its pages show', async (seed) => {
		const pick = random(seed);
		const model = newModel(generate(pick), pick);
		const inPeriod = inside(model, { start_date: period.start, end_date: period.end });
		model.hidden = new Set(inPeriod.filter(() => pick() < 0.02).map((row) => row.reference));
		model.hidden.add(inPeriod[Math.floor(pick() * inPeriod.length)]?.reference ?? 'none');
		if (inPeriod.length === 0) return;

		await expect(readWindow.call(contextFor(model, pick), ROUTE, {}, period, words)).rejects.toThrow(
			new RegExp(`^Read \\d+ of the ${inPeriod.length} payouts the Money API counts in the period: ${model.hidden.size} could not be read$`),
		);
	});
});

describe('reading a list window whole', () => {
	const model = (rows: Row[]): ApiModel => ({ rows, ties: 'alternating', exclusive: false, toSecond: false, requests: 0, log: [] });
	const burst = (count: number, at: number, prefix = 'b') => Array.from({ length: count }, (_, index) => ({ reference: `${prefix}${index}`, at, status: 'COMPLETED' }));

	it('reads 150 payouts of one instant in 2 pages, the list in 4 requests and its count in 1 more', async () => {
		const api = model([...burst(150, DAY + 3_600_000), ...burst(20, DAY + 1_000, 'o')]);
		const read = await readWindow.call(contextFor(api, random(1)), ROUTE, {}, period, words);
		expect({ read: read.envelopes.length, total: read.total, requests: read.requests }).toEqual({ read: 170, total: 170, requests: 4 });
	});

	it(`fails, naming the instant, when its pages never show all of it in ${MAX_INSTANT_ROUNDS} rounds`, async () => {
		const api = model(burst(150, DAY + 3_600_000));
		api.ties = 'byPage';
		await expect(readWindow.call(contextFor(api, random(1)), ROUTE, {}, period, words)).rejects.toThrow(
			`The Money API lists 150 transactions created at 2024-04-02T01:00:00.000Z; after reading their pages ${MAX_INSTANT_ROUNDS} times, 50 of them were still not read`,
		);
	});

	it('walks an instant of 250 payouts whole, as the API held it when the walk started, though one more is listed at it before each request (ties shuffled; 20 seeds)', async () => {
		const short: string[] = [];
		for (let seed = 1; seed <= 20; seed++) {
			const instant = DAY + 3_600_000;
			const held = [...burst(250, instant), ...burst(60, DAY + 1_000, 'o')];
			const api = model(held.map((row) => ({ ...row })));
			api.ties = 'shuffled';
			api.beforeAnswer = (request) => {
				if (request > 0) api.rows.push({ reference: `late${request}`, at: instant, status: 'COMPLETED' });
			};
			const context = contextFor(api, random(seed));
			// As the Poll Trigger walks a window: step by step, with no count of the whole window after.
			const window = newWindow(period.start, period.end);
			const read = new Set<string>();
			try {
				while (!window.finished) for (const envelope of await windowStep.call(context, ROUTE, {}, window)) read.add(envelope.reference as string);
			} catch {
				continue;
			}
			const missed = held.filter((row) => !read.has(row.reference));
			if (missed.length > 0) short.push(`seed ${seed}: ${missed.length} of the payouts held when the walk started not read, no error`);
		}
		expect(short).toEqual([]);
	});

	it(`fails after reading ${MAX_INSTANT_ROUNDS} rounds, not by asking pages for ever, when every page the API answers is its first`, async () => {
		const api = model(burst(150, DAY + 3_600_000));
		api.ignoresPage = true;
		api.beforeAnswer = (request) => {
			if (request > 2_000) throw new Error('2,000 requests and still reading');
		};
		await expect(readWindow.call(contextFor(api, random(1)), ROUTE, {}, period, words)).rejects.toThrow(`after reading their pages ${MAX_INSTANT_ROUNDS} times`);
	});

	it('fails, saying what came back, on a list answer without pagination.total', async () => {
		const context = {
			getNode: () => node,
			getExecutionCancelSignal: () => undefined,
			logger: { debug: () => {} },
			helpers: { httpRequestWithAuthentication: async () => ({ statusCode: 200, headers: {}, body: { success: true, data: [], pagination: { page: 1, limit: 100 } } }) },
		} as unknown as IExecuteFunctions;
		await expect(windowStep.call(context, ROUTE, {}, newWindow(null, null))).rejects.toThrow('The Money API answered a list without pagination.total');
	});
});

import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { readWindow } from '../../../nodes/transport/listRead';
import { type ListWindow, MAX_INSTANT_ROUNDS, newWindow, windowStep } from '../../../nodes/transport/listWindow';
import { seededRandom as random } from '../../../sandbox/domain/random';

/*
 * Property test of the list reader (nodes/transport/listWindow.ts, listRead.ts) over generated
 * lists, served by a model of the Money API's list route that orders transactions by created_at
 * only, as docs/decisions.md#d6 allows: ties in another order on each request (reversed on every
 * other one, or shuffled), bounds that include or exclude their own instant, created_at to the
 * millisecond or to the second (or kept to the millisecond and written to the second), bursts larger
 * than a page at one instant, ties at page boundaries, and transactions listed late or changing
 * status between two requests.
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
	/** created_at compared at the second (toSecond), or kept and compared to the millisecond but written to the second (hiddenFraction). */
	toSecond: boolean;
	hiddenFraction?: boolean;
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
		created_at: writeTime(row.at, model.toSecond || model.hiddenFraction === true),
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
const newModel = (rows: Row[], pick: () => number): ApiModel => {
	const model: ApiModel = { rows, ties: pick() < 0.5 ? 'alternating' : 'shuffled', exclusive: pick() < 0.3, toSecond: pick() < 0.3, requests: 0, log: [] };
	model.hiddenFraction = !model.toSecond && pick() < 0.4;
	return model;
};

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

	/** Walks `api` with a status in the query, as the Poll Trigger lists PENDING payouts; completes some of the read ones when `complete` says. */
	async function walkPending(api: ApiModel, complete: (window: ListWindow, read: Set<string>) => void): Promise<string[]> {
		const context = contextFor(api, random(1));
		const window = newWindow(null, period.end);
		const read = new Set<string>();
		api.beforeAnswer = () => complete(window, read);
		while (!window.finished) for (const envelope of await windowStep.call(context, ROUTE, { status: 'PENDING' }, window)) read.add(envelope.reference as string);
		return api.rows.filter((row) => row.status === 'PENDING' && !read.has(row.reference)).map((row) => row.reference);
	}
	const pendingBurst = (count: number, at: number, prefix: string) => burst(count, at, prefix).map((row) => ({ ...row, status: 'PENDING' }));

	it('reads each payout still PENDING of an instant of 250, with PENDING in the query, when 50 it read complete before its third page', async () => {
		const instant = DAY + 3_600_000;
		const api = model([...pendingBurst(250, instant, 'x'), ...pendingBurst(30, DAY + 1_000, 'o')]);
		let done = false;
		const neverRead = await walkPending(api, (_window, read) => {
			if (done || read.size < 200) return;
			done = true;
			api.rows.filter((row) => read.has(row.reference)).slice(0, 50).forEach((row) => (row.status = 'COMPLETED'));
		});
		expect(neverRead).toEqual([]);
	});

	it('reads each payout still PENDING of an instant of 150 below a second of 150, with PENDING in the query, when 40 of that second complete meanwhile (created_at to the second, bounds inclusive)', async () => {
		const instant = DAY + 3_600_000;
		const api = model([...pendingBurst(150, instant + 1000, 'n'), ...pendingBurst(150, instant, 'x'), ...pendingBurst(30, DAY + 1_000, 'o')]);
		api.toSecond = true;
		let done = false;
		const neverRead = await walkPending(api, (window) => {
			if (done || (window.instant?.newer ?? 0) < 150) return;
			done = true;
			api.rows.filter((row) => row.reference.startsWith('n')).slice(0, 40).forEach((row) => (row.status = 'COMPLETED'));
		});
		expect(neverRead).toEqual([]);
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

describe('reading a list whose created_at is kept to the millisecond and written to the second', () => {
	const HOUR = 3_600_000;
	const hidden = (rows: Row[], exclusive: boolean): ApiModel => ({ rows, ties: 'alternating', exclusive, toSecond: false, hiddenFraction: true, requests: 0, log: [] });
	/**
	 * 99 payouts in seconds of their own, then one at a whole second, the oldest of page 1 (the first
	 * instant the walk stands at), then 60 seconds of 4 payouts each at fractions the API does not
	 * write: later pages end inside a second.
	 */
	const day = (): Row[] => {
		const rows: Row[] = [];
		const add = (at: number) => rows.push({ reference: `pay_${rows.length}`, at, status: 'COMPLETED' });
		for (let index = 0; index < 99; index++) add(DAY + 20 * HOUR - index * 1000 + 500);
		add(DAY + 19 * HOUR);
		for (let second = 0; second < 60; second++) for (const fraction of [850, 600, 350, 100]) add(DAY + 18 * HOUR - second * 1000 + fraction);
		return rows;
	};
	/** Every reference a walk of the period returns, step by step as the Poll Trigger walks it. */
	const walk = async (api: ApiModel, window: ListWindow = newWindow(period.start, period.end)): Promise<string[]> => {
		const context = contextFor(api, random(1));
		const read: string[] = [];
		while (!window.finished) for (const envelope of await windowStep.call(context, ROUTE, {}, window)) read.push(envelope.reference as string);
		return read;
	};
	const bounds = [
		['include', false],
		['exclude', true],
	] as const;

	it.each(bounds)('returns each of 340 payouts (Return All, Reconcile), from an API whose bounds %s their instant', async (_, exclusive) => {
		const read = await readWindow.call(contextFor(hidden(day(), exclusive), random(1)), ROUTE, {}, period, words);
		expect({ read: new Set(read.envelopes.map((envelope) => envelope.reference)).size, total: read.total }).toEqual({ read: 340, total: 340 });
	});

	it.each(bounds)('walks each of 340 payouts once, as the Poll Trigger walks a window, from an API whose bounds %s their instant', async (_, exclusive) => {
		const read = await walk(hidden(day(), exclusive));
		expect({ read: read.length, distinct: new Set(read).size }).toEqual({ read: 340, distinct: 340 });
	});

	it.each(bounds)(
		'walks on below an instant of 150 payouts at one whole millisecond to the 120 of the second before it, more than a page, and what is older, from an API whose bounds %s their instant',
		async (_, exclusive) => {
			const instant = DAY + 12 * HOUR;
			const rows = [
				...Array.from({ length: 150 }, (__, index) => ({ reference: `x${index}`, at: instant, status: 'COMPLETED' })),
				...Array.from({ length: 120 }, (__, index) => ({ reference: `y${index}`, at: instant - 1000 + 1 + index * 8, status: 'COMPLETED' })),
				...Array.from({ length: 30 }, (__, index) => ({ reference: `o${index}`, at: instant - 60_000 - index * 1000 + 250, status: 'COMPLETED' })),
			];
			const read = await walk(hidden(rows, exclusive));
			expect({ read: read.length, distinct: new Set(read).size }).toEqual({ read: 300, distinct: 300 });
		},
	);

	it.each(bounds)(
		'walks on below an instant of 150 payouts to the 120 of the millisecond before it, more than a page, and what is older, from an API that writes the millisecond and whose bounds %s their instant',
		async (_, exclusive) => {
			const instant = DAY + 12 * HOUR + 500;
			const rows = [
				...Array.from({ length: 150 }, (__, index) => ({ reference: `x${index}`, at: instant, status: 'COMPLETED' })),
				...Array.from({ length: 120 }, (__, index) => ({ reference: `y${index}`, at: instant - 1, status: 'COMPLETED' })),
				...Array.from({ length: 30 }, (__, index) => ({ reference: `o${index}`, at: instant - 60_000 - index * 1000, status: 'COMPLETED' })),
			];
			const api: ApiModel = { rows, ties: 'shuffled', exclusive, toSecond: false, requests: 0, log: [] };
			const read = await walk(api);
			expect({ read: read.length, distinct: new Set(read).size }).toEqual({ read: 300, distinct: 300 });
		},
	);

	it('returns every payout of 300 generated days, 1 in 1,000 created at a whole second (Return All and a walk as the Poll Trigger\'s)', async () => {
		const short: string[] = [];
		for (let seed = 1; seed <= 300; seed++) {
			const pick = random(seed * 31);
			const rows: Row[] = [];
			// Seconds of 1 to 8 payouts, each at a fraction of its second the API does not write.
			for (let second = DAY + 1000 + Math.floor(pick() * 3600) * 1000; rows.length < 400 + seed % 7 * 100; second += 1000 * (1 + Math.floor(pick() * 120))) {
				for (let count = 1 + Math.floor(pick() * 8); count > 0; count--) {
					rows.push({ reference: `pay_${rows.length}`, at: second + (pick() < 0.001 ? 0 : 1 + Math.floor(pick() * 999)), status: 'COMPLETED' });
				}
			}
			const exclusive = pick() < 0.3;
			let failure = '';
			try {
				const read = await readWindow.call(contextFor(hidden(rows, exclusive), random(seed)), ROUTE, {}, period, words);
				if (read.envelopes.length !== rows.length) failure = `Return All ${read.envelopes.length} of ${rows.length}`;
			} catch (error) {
				failure = (error as Error).message;
			}
			const walked = new Set(await walk(hidden(rows, exclusive)));
			if (walked.size !== rows.length) failure += `${failure ? '; ' : ''}the walk ${walked.size} of ${rows.length}, no error`;
			if (failure) short.push(`day ${seed}: ${failure}`);
		}
		expect(short).toEqual([]);
	});

	/** A window as version 1.0.0 saved it mid-walk: `inclusive` learnt true at the whole second of page 1's oldest payout. */
	const savedBy100 = (fields: Partial<ListWindow>): ListWindow =>
		({ start: period.start, top: period.end, seen: [], inclusive: true, stepMs: 1000, zoneless: false, instant: null, total: 340, requests: 2, finished: false, ...fields }) as ListWindow;

	it.each(bounds)('resumes a window saved by version 1.0.0 mid-walk (end_date learnt to include its instant) and reads each payout it had not read once, from an API whose bounds %s their instant', async (_, exclusive) => {
		const rows = day();
		const newestFirst = [...rows].sort((a, b) => b.at - a.at);
		// Version 1.0.0's second page: from page 1's oldest payout on; the window stands at the second of its oldest.
		const read = newestFirst.slice(0, 199);
		const end = Math.floor(read[198].at / 1000) * 1000;
		const window = savedBy100({ end, seen: read.filter((row) => Math.floor(row.at / 1000) * 1000 === end).map((row) => row.reference) });

		const resumed = await walk(hidden(rows, exclusive), JSON.parse(JSON.stringify(window)) as ListWindow);

		const all = [...read.map((row) => row.reference), ...resumed];
		expect({ read: all.length, distinct: new Set(all).size }).toEqual({ read: 340, distinct: 340 });
	});

	it('resumes a window saved by version 1.0.0 reading page 2 of an instant of 150 payouts, with 5 more a second after it, and reads each payout it had not read once', async () => {
		const instant = DAY + 12 * HOUR;
		const rows = [
			...Array.from({ length: 5 }, (__, index) => ({ reference: `n${index}`, at: instant + 1000, status: 'COMPLETED' })),
			...Array.from({ length: 150 }, (__, index) => ({ reference: `x${index}`, at: instant, status: 'COMPLETED' })),
			...Array.from({ length: 40 }, (__, index) => ({ reference: `o${index}`, at: instant - 60_000 - index * 1000 + 250, status: 'COMPLETED' })),
		];
		// Read: the 5, and the instant's first 100 (version 1.0.0's page 1 of end_date at the instant).
		const read = [...rows.slice(0, 5), ...rows.slice(5, 105)].map((row) => row.reference);
		const window = savedBy100({ end: instant, seen: read.slice(5), total: 195, instant: { count: null, size: 100, page: 2, round: 0 } });

		const resumed = await walk(hidden(rows, false), JSON.parse(JSON.stringify(window)) as ListWindow);

		const all = [...read, ...resumed];
		expect({ read: all.length, distinct: new Set(all).size }).toEqual({ read: 195, distinct: 195 });
	});
});

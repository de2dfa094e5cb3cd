import { SaveTurns } from '../../../nodes/MoneyTrigger/memory/saveTurns';

const tick = async (ms = 5) => await new Promise((resolve) => setTimeout(resolve, ms));

describe('SaveTurns: the deliveries of a workflow that will save its static data, one at a time', () => {
	it('goes on at once when no turn is held', async () => {
		const turns = new SaveTurns(1_000);
		const release = await turns.take();
		expect(turns.pending).toBe(1);
		release();
		release();
		expect(turns.pending).toBe(0);
		(await turns.take())();
	});

	it('grants the turns in the order they were asked for, each once the one before is released', async () => {
		const turns = new SaveTurns(10_000);
		const order: string[] = [];
		const releases: Record<string, () => void> = {};
		const ask = (name: string) =>
			turns.take().then((release) => {
				order.push(name);
				releases[name] = release;
			});
		const asked = [ask('a'), ask('b'), ask('c')];
		await tick();
		expect(order).toEqual(['a']);
		releases.a();
		await tick();
		expect(order).toEqual(['a', 'b']);
		releases.b();
		await Promise.all(asked);
		expect(order).toEqual(['a', 'b', 'c']);
		releases.c();
		expect(turns.pending).toBe(0);
	});

	it('stops waiting for a turn held too long (an execution waiting for a free slot)', async () => {
		const turns = new SaveTurns(100);
		await turns.take(); // never released
		const started = Date.now();
		(await turns.take())();
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
	});

	it('waits for a queue that moves however long it is: the limit is per turn held, not per wait', async () => {
		const turns = new SaveTurns(100);
		const events: string[] = [];
		const holdFor = async (name: string, ms: number) => {
			const release = await turns.take();
			events.push(`${name} granted`);
			await tick(ms);
			events.push(`${name} released`);
			release();
		};
		await Promise.all([holdFor('a', 70), holdFor('b', 70), holdFor('c', 70)]);
		expect(events).toEqual(['a granted', 'a released', 'b granted', 'b released', 'c granted', 'c released']);
	});
});

describe('SaveTurns: a turn whose save has begun', () => {
	it('is waited for past the stuck limit: the next save would commit first and the older copy last', async () => {
		const turns = new SaveTurns(50, 10_000);
		const first = await turns.take();
		first.saving(); // n8n serialised the first request's copy; its UPDATE waits for a connection
		let second = false;
		const next = turns.take().then((release) => {
			second = true;
			return release;
		});
		await tick(150);
		expect(second).toBe(false);
		first();
		(await next)();
		expect(second).toBe(true);
		expect(turns.pending).toBe(0);
	});

	it('still gives up on a turn whose save began after a limit of its own (a database that never answers)', async () => {
		const turns = new SaveTurns(20, 100);
		const first = await turns.take();
		first.saving();
		const started = Date.now();
		(await turns.take())();
		expect(Date.now() - started).toBeGreaterThanOrEqual(90);
	});

	it('gives up on a turn held without a save after the stuck limit, as before', async () => {
		const turns = new SaveTurns(50, 10_000);
		await turns.take(); // its execution waits for a free slot: no save yet
		const started = Date.now();
		(await turns.take())();
		expect(Date.now() - started).toBeLessThan(1_000);
	});
});

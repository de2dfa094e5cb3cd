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

import { SaveTurns } from '../../../nodes/MoneyTrigger/memory/saveTurns';

const tick = async (ms = 5) => await new Promise((resolve) => setTimeout(resolve, ms));

describe('SaveTurns under review: a turn whose save has begun', () => {
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

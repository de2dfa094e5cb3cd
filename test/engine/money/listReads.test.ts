import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox, type SandboxOptions } from '../../../sandbox';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, type Engine, loadEngine, runMoneyNode } from '../../harness/engine';
import { fractionOnlyWhenNotZero, type ListRewrite, pagesOf, startListGateway } from '../listGateway';

/**
 * An adversary's read of the list reads as issue 36 left them (nodes/transport/listWindow.ts,
 * listRead.ts; Get Many's Return All and Reconcile): each test states what must hold, and failed
 * on the code it was written against. The API differs from the sandbox's defaults in one way the
 * spec allows or leaves open, by the sandbox's settings or by a gateway that rewrites its list
 * answers (test/engine/listGateway.ts).
 */

const FAST = { maxRetries: 1, retryBaseDelayMs: 2 };
const DAY = { createdAfter: '2024-04-02T00:00:00Z', createdBefore: '2024-04-03T00:00:00Z' };

const env = {} as { engine: Engine; sb: Sandbox; closeGateway?: () => Promise<void> };
let open = false;

async function closeApi(): Promise<void> {
	if (!open) return;
	open = false;
	await env.closeGateway?.();
	env.closeGateway = undefined;
	await env.sb.close();
}

beforeAll(async () => {
	env.engine = await loadEngine();
});
afterEach(closeApi);

/** A sandbox of its own for the test, and the credential the node uses: the sandbox's, or a gateway's in front of it. */
async function api(options: SandboxOptions = {}, rewrite?: ListRewrite, beforeList?: (url: URL) => Promise<void>): Promise<string> {
	env.sb = await startSandbox({ finalizeAfterMs: null, ...options });
	open = true;
	env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
	if (!rewrite && !beforeList) return CREDENTIAL_ID;
	const gateway = await startListGateway(env.engine, env.sb, rewrite, beforeList);
	env.closeGateway = gateway.close;
	return gateway.credentialId;
}

async function payouts(): Promise<Array<{ reference: string; amount: number; currency: string }>> {
	return (await env.sb.control.ledger()).payouts.map((entry) => ({ reference: entry.reference, amount: Math.abs(entry.amount.value), currency: entry.amount.currency }));
}

async function reconcile(credentialId: string, records: IDataObject[]) {
	const result = await runMoneyNode(env.engine, {
		credentialId,
		parameters: { resource: 'payout', operation: 'reconcile', ...DAY, referenceField: 'reference', businessReferenceField: '', amountField: 'amount', currencyField: 'currency', options: FAST },
		items: records.map((json) => ({ json })),
	});
	const output = (index: number) => result.output('Money', index).map((item) => item.json);
	return { result, matched: output(0), mismatched: output(1), missing: output(2), unexpected: output(3) };
}

async function getMany(credentialId: string) {
	const result = await runMoneyNode(env.engine, {
		credentialId,
		parameters: { resource: 'payout', operation: 'getAll', returnAll: true, filters: { startDate: DAY.createdAfter, endDate: DAY.createdBefore }, options: FAST },
	});
	return { result, references: result.output('Money').map((item) => item.json.reference as string) };
}

describe('Reconcile and Get Many, read as an adversary', () => {
	it('reconciles a day whose bulk run made 150 payouts within 150 ms (no two in one millisecond), from an API whose bounds exclude their instant and whose created_at leaves out a zero fraction', async () => {
		const credentialId = await api({ config: { listBoundsExclusive: true } }, fractionOnlyWhenNotZero);
		await env.sb.control.seed({ resource: 'payout', count: 20, status: 'COMPLETED', createdAtFrom: '2024-04-02T08:00:00.123Z', createdAtTo: '2024-04-02T09:00:00.456Z' });
		// The day's newest payout is created at a whole second: the list writes its created_at without a fraction.
		await env.sb.control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', createdAtFrom: '2024-04-02T10:00:00.851Z', createdAtTo: '2024-04-02T10:00:01.000Z' });
		const records = await payouts();

		const out = await reconcile(credentialId, records);

		expect(out.result.error()?.message).toBeUndefined();
		expect([out.matched.length, out.missing.length]).toEqual([170, 0]);
	});

	it('returns each of 260 payouts from an API that answers 50 transactions a page (pagination.limit 50), as Return All did before it walked by created_at', async () => {
		const credentialId = await api({}, pagesOf(50));
		await env.sb.control.seed({ resource: 'payout', count: 260, status: 'COMPLETED', createdAtFrom: '2024-04-02T00:00:10Z', createdAtTo: '2024-04-02T23:59:50Z' });

		const { result, references } = await getMany(credentialId);

		expect(result.error()?.message).toBeUndefined();
		expect(new Set(references).size).toBe(260);
	});

	it('returns every payout the API counted when it last counted them, or fails, though an instant of 250 payouts grows by one before each list request while it is read (ties shuffled; 8 sandbox seeds)', async () => {
		const instant = '2024-04-02T10:00:00.000Z';
		const short: string[] = [];
		for (let seed = 1; seed <= 8; seed++) {
			const requests: URL[] = [];
			const credentialId = await api({ config: { seed, listTieOrder: 'shuffled' } }, undefined, async (url) => {
				requests.push(url);
				// Listed late at the instant being read (a bulk run still being written, or a replica catching up).
				if (requests.length > 1) await env.sb.control.seed({ resource: 'payout', count: 1, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant, metadata: { late: requests.length } });
			});
			await env.sb.control.seed({ resource: 'payout', count: 60, status: 'COMPLETED', createdAtFrom: '2024-04-02T00:00:10Z', createdAtTo: '2024-04-02T09:59:50Z' });
			await env.sb.control.seed({ resource: 'payout', count: 250, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant });

			const { result, references } = await getMany(credentialId);

			// The count the read is checked against: its last request over the whole period (page 1 up to Created Before).
			const counted = requests.map((url, index) => ({ url, index })).filter(({ url }) => url.searchParams.get('end_date') === '2024-04-03T00:00:00.000Z' && url.searchParams.get('page') === '1').pop()?.index ?? 0;
			const held = (await env.sb.control.ledger()).payouts.filter((entry) => Number((entry.metadata as IDataObject).late ?? 0) <= counted + 1);
			const returned = new Set(references);
			const missed = held.filter((entry) => !returned.has(entry.reference));
			if (!result.error() && missed.length > 0) short.push(`seed ${seed}: ${references.length} returned, ${missed.length} the API held when counted not returned, no error`);
			await closeApi();
		}
		expect(short).toEqual([]);
	});

	it.each([
		['include', false],
		['exclude', true],
	])(
		'returns each of 340 payouts from an API that keeps created_at to the millisecond and writes it to the second, the oldest of page 1 at a whole second, later pages ending inside seconds, whose bounds %s their instant',
		async (_, listBoundsExclusive) => {
			const credentialId = await api({ config: { createdAtWrittenToSecond: true, listBoundsExclusive } });
			// 99 payouts in seconds of their own; then page 1's oldest, at a whole second; then 60 seconds of 4 payouts each at .100, .350, .600 and .850.
			await env.sb.control.seed({ resource: 'payout', count: 99, status: 'COMPLETED', createdAtFrom: '2024-04-02T19:58:22.500Z', createdAtTo: '2024-04-02T20:00:00.500Z' });
			await env.sb.control.seed({ resource: 'payout', count: 1, status: 'COMPLETED', createdAtFrom: '2024-04-02T19:00:00.000Z', createdAtTo: '2024-04-02T19:00:00.000Z' });
			for (let second = 0; second < 60; second++) {
				const at = Date.parse('2024-04-02T18:00:00.000Z') - second * 1000;
				await env.sb.control.seed({ resource: 'payout', count: 4, status: 'COMPLETED', createdAtFrom: new Date(at + 100).toISOString(), createdAtTo: new Date(at + 850).toISOString() });
			}

			const { result, references } = await getMany(credentialId);

			expect(result.error()?.message).toBeUndefined();
			expect({ returned: references.length, distinct: new Set(references).size }).toEqual({ returned: 340, distinct: 340 });
		},
	);
});

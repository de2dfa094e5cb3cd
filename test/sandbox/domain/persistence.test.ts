import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiTestClient, chargeBody, payoutBody, startTestSandbox } from '../helpers';

describe('--state persistence', () => {
	const directory = mkdtempSync(join(tmpdir(), 'money-sandbox-state-'));
	const statePath = join(directory, 'state.json');
	afterAll(() => rmSync(directory, { recursive: true, force: true }));

	it('saves on close and reloads transactions, balances, idempotency records, tokens and client settings', async () => {
		const first = await startTestSandbox({ statePath });
		const api = new ApiTestClient(first);
		const charge = await api.call('POST', '/money/v1/charge', { body: chargeBody({ amount: 9000 }), idempotencyKey: 'persist-1' });
		await first.control.setStatus(charge.json.reference, 'COMPLETED');
		await api.call('POST', '/money/v1/payout', { body: payoutBody({ amount: 1000 }) });
		await first.control.updateClient(first.info.clientId, { limits: { velocityLimit: 7 } });
		const balance = (await first.control.ledger()).balance.value;
		const publicKey = first.info.rsaPublicKeyPem;
		await first.close();
		expect(JSON.parse(readFileSync(statePath, 'utf8')).version).toBe(1);

		const second = await startTestSandbox({ statePath });
		try {
			const again = new ApiTestClient(second);
			expect(second.info.rsaPublicKeyPem).toBe(publicKey);
			const read = await again.call('GET', `/money/v1/charge/${charge.json.reference}`);
			expect(read.json.data.status.label).toBe('COMPLETED');
			expect((await second.control.ledger()).balance.value).toBe(balance);
			expect((await again.call('GET', '/money/v1/payout')).json.pagination.total).toBe(1);
			const replay = await again.call('POST', '/money/v1/charge', { body: chargeBody({ amount: 9000 }), idempotencyKey: 'persist-1' });
			expect(replay.json.reference).toBe(charge.json.reference);
			expect((await second.control.getClient(second.info.clientId)).limits.velocityLimit).toBe(7);
			const reusedToken = new ApiTestClient(second);
			(reusedToken as any).token = (api as any).token;
			expect((await reusedToken.call('GET', '/money/v1/account')).status).toBe(200);
		} finally {
			await second.close();
		}
	});

	it('saves on change, before close', async () => {
		const path = join(directory, 'live.json');
		const sandbox = await startTestSandbox({ statePath: path });
		try {
			const created = await new ApiTestClient(sandbox).call('POST', '/money/v1/charge', { body: chargeBody() });
			let saved = '';
			for (let attempt = 0; attempt < 100 && !saved.includes(created.json.reference); attempt++) {
				await new Promise((resolve) => setTimeout(resolve, 20));
				try {
					saved = readFileSync(path, 'utf8');
				} catch {
					saved = '';
				}
			}
			expect(saved).toContain(created.json.reference);
		} finally {
			await sandbox.close();
		}
	});
});

import { setTimeout as sleep } from 'node:timers/promises';

import { HAND_OVER_HEADER, handOverBody, signHandOver } from '../../../nodes/events/backstop';
import { FRESH_MS } from '../../../nodes/MoneyTrigger/webhookSecret';
import { signWebhook } from '../../../sandbox/domain/webhooks';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox } from '../../harness/engine';
import { harnessRequest, postRaw, WebhookHarness } from '../../harness/webhook';
import { storedStatuses } from '../../harness/stored-memory';
import { deliverySuite, nowSeconds } from './support';

/**
 * When the Money Trigger acknowledges an event, and what it remembers, against the harness's model
 * of n8n 2.41's webhook path (test/harness/README.md): the answer, the execution and the static-data
 * save in n8n's order, and concurrent deliveries each loading their own copy of the static data.
 */

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('The condition was not met in time');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe('Money Trigger: acknowledgement and memory on n8n\'s webhook path', () => {
	const suite = deliverySuite();
	const { open, event, post, ran } = suite;

	const payout = (id: string, reference: string, status: string) =>
		JSON.stringify({
			id,
			event: `payout.${status.toLowerCase()}`,
			created_at: new Date().toISOString(),
			data: { reference, type: 'payout', status: { code: 9, label: status }, amount: { value: -100, currency: 'XOF' }, channel: 'psp-a-tg' },
		});

	/** Each credential read takes `ms` longer (in n8n 2.41 a read is a database read and an isolate); restore the spy after. */
	function slowCredentialReads(ms: number) {
		const credentials = suite.engine.credentials;
		const read = credentials.getDecrypted.bind(credentials);
		return jest.spyOn(credentials, 'getDecrypted').mockImplementation(async (...args) => {
			await sleep(ms);
			return await read(...args);
		});
	}

	/** Date.now() moved `offsetMs` ahead for the duration of `body`. */
	async function later<T>(offsetMs: number, body: () => Promise<T>): Promise<T> {
		const realNow = Date.now.bind(Date);
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
		try {
			return await body();
		} finally {
			clock.mockRestore();
		}
	}

	it('does not acknowledge an event n8n could not start, and runs the sender\'s retry', async () => {
		const harness = await open();
		harness.failNextRuns = 1;
		const body = event('evt_unstarted');
		const first = await post(harness, body);
		expect(first.status).toBeGreaterThanOrEqual(500);
		expect(ran(harness)).toEqual([]);
		expect(harness.remembered().get('chg_evt_unstarted')).toBeUndefined();
		expect((await post(harness, body)).status).toBe(200);
		expect((await post(harness, body)).status).toBe(200);
		expect(ran(harness)).toEqual(['evt_unstarted']);
	});

	it('judges the retry of an event n8n could not start afresh: the status it brought was never the transaction\'s', async () => {
		const harness = await open();
		harness.failNextRuns = 1;
		expect((await post(harness, event('evt_unwritten_completed', 'chg_unwritten'))).status).toBeGreaterThanOrEqual(500);
		expect((await post(harness, event('evt_unwritten_pending', 'chg_unwritten', 'PENDING'))).status).toBe(200);
		expect((await post(harness, event('evt_unwritten_completed', 'chg_unwritten'))).status).toBe(200);
		expect(ran(harness)).toEqual(['evt_unwritten_pending', 'evt_unwritten_completed']);
	});

	// Before, the transaction took on the status an event brought once its execution was written, and
	// got back the status it had then should n8n answer an error. That status could be another event's
	// whose execution n8n wrote and could not start either: printed completedRetry {received, ignored:
	// duplicate-event}, ran [] for the retries. Here the second event got its turn because the first held
	// it over 5 s (STUCK_TURN_MS) while its execution waited for a slot.
	it('remembers only statuses whose runs n8n confirmed: two events of a payout whose executions n8n wrote but could not start both run when retried', async () => {
		const harness = await open();
		harness.failNextRuns = 2;
		harness.capacityWaitMs = 8000; // COMPLETED: written, then 8 s until n8n fails it
		const completed = post(harness, payout('evt_lost_completed', 'po_lost', 'COMPLETED'));
		await sleep(300);
		harness.capacityWaitMs = 5000; // REVERSED: its turn after 5 s, written, then failed after the COMPLETED
		const reversed = post(harness, payout('evt_lost_reversed', 'po_lost', 'REVERSED'));
		expect((await Promise.all([completed, reversed])).map((answer) => answer.status)).toEqual([500, 500]);
		harness.capacityWaitMs = 0;
		const completedRetry = await post(harness, payout('evt_lost_completed', 'po_lost', 'COMPLETED'));
		const reversedRetry = await post(harness, payout('evt_lost_reversed', 'po_lost', 'REVERSED'));
		expect({ completedRetry: completedRetry.body, reversedRetry: reversedRetry.body, ran: ran(harness) }).toEqual({
			completedRetry: '',
			reversedRetry: '',
			ran: ['evt_lost_completed', 'evt_lost_reversed'],
		});
	}, 40_000);

	// Before, the status in flight was in the memory, and another delivery's save wrote it to the row;
	// n8n then failed the event, and after a restart its retry was a duplicate: printed storedAfterFailure
	// COMPLETED, retry {received, ignored: duplicate-event}, ran [].
	it('saves no status whose execution n8n then could not start: after a restart, the event\'s retry runs', async () => {
		const harness = await open();
		harness.capacityWaitMs = 8000; // written, then 8 s until n8n fails it
		const failed = post(harness, event('evt_unsaved_failed', 'chg_unsaved_failed'));
		await sleep(300);
		harness.capacityWaitMs = 0;
		// Another transaction: its turn after 5 s, written, saved and answered at once.
		expect((await post(harness, event('evt_saved_meanwhile', 'chg_saved_meanwhile'))).status).toBe(200);
		harness.failNextRuns = 1;
		expect((await failed).status).toBe(500);
		const storedAfterFailure = harness.remembered().get('chg_unsaved_failed');

		await harness.close();
		const restarted = await open(harness.restarted());
		const retry = await post(restarted, event('evt_unsaved_failed', 'chg_unsaved_failed'));
		expect({ storedAfterFailure, retry: retry.body, ran: ran(restarted) }).toEqual({ storedAfterFailure: undefined, retry: '', ran: ['evt_unsaved_failed'] });
	}, 40_000);

	// Before, every label outside the five was one status: SUCCESSFUL after PROCESSING was answered
	// duplicate-event and REFUNDED after COMPLETED stale-status, and neither ran.
	it('runs every status of a transaction once, each label as it came: PROCESSING, SUCCESSFUL, REFUNDED and COMPLETED then REFUNDED run; a repeat and a PENDING after them do not, also after a restart', async () => {
		const harness = await open();
		const answers: string[] = [];
		const deliver = async (target: WebhookHarness, id: string, reference: string, status: string) => {
			const answer = await post(target, event(id, reference, status));
			answers.push(`${id}: ${answer.status} ${answer.body}`);
		};
		await deliver(harness, 'evt_processing', 'chg_labels', 'PROCESSING');
		await deliver(harness, 'evt_successful', 'chg_labels', 'SUCCESSFUL');
		await deliver(harness, 'evt_refunded', 'chg_labels', 'REFUNDED');
		await deliver(harness, 'evt_successful_again', 'chg_labels', 'SUCCESSFUL');
		await deliver(harness, 'evt_pending_late', 'chg_labels', 'PENDING');
		await deliver(harness, 'evt_completed', 'chg_refunded', 'COMPLETED');
		await deliver(harness, 'evt_refunded_after_completed', 'chg_refunded', 'REFUNDED');
		await harness.close();
		const restarted = await open(harness.restarted());
		await deliver(restarted, 'evt_processing', 'chg_labels', 'PROCESSING');
		await deliver(restarted, 'evt_refunded_after_completed', 'chg_refunded', 'REFUNDED');
		await deliver(restarted, 'evt_pending_after_restart', 'chg_refunded', 'PENDING');
		expect({ ran: [...ran(harness), ...ran(restarted)], answers }).toEqual({
			ran: ['evt_processing', 'evt_successful', 'evt_refunded', 'evt_completed', 'evt_refunded_after_completed'],
			answers: [
				'evt_processing: 200 ',
				'evt_successful: 200 ',
				'evt_refunded: 200 ',
				'evt_successful_again: 200 {"received":true,"ignored":"duplicate-event"}',
				'evt_pending_late: 200 {"received":true,"ignored":"stale-status"}',
				'evt_completed: 200 ',
				'evt_refunded_after_completed: 200 ',
				'evt_processing: 200 {"received":true,"ignored":"duplicate-event"}',
				'evt_refunded_after_completed: 200 {"received":true,"ignored":"duplicate-event"}',
				'evt_pending_after_restart: 200 {"received":true,"ignored":"stale-status"}',
			],
		});
	});

	it('keeps the stored memory when the workflow is published again while a delivery saves: publishing saves none of the trigger\'s static data', async () => {
		const harness = await open();
		const reads = slowCredentialReads(300);
		try {
			// Published again: n8n takes the webhooks down and up, each time over the row as it loads it then.
			const republished = harness.deactivate().then(async () => await harness.activate());
			expect((await post(harness, event('evt_during_publish'))).status).toBe(200);
			await republished;
		} finally {
			reads.mockRestore();
		}
		const stored = harness.remembered().get('chg_evt_during_publish');
		await harness.close();
		const restarted = await open(harness.restarted());
		const redelivered = await post(restarted, event('evt_during_publish'));
		expect({ stored, redelivered: redelivered.body, ran: ran(restarted) }).toEqual({
			stored: ['COMPLETED'],
			redelivered: JSON.stringify({ received: true, ignored: 'duplicate-event' }),
			ran: [],
		});
	});

	it('saves every status of a burst of distinct events handled at once, and after a restart runs none of them again', async () => {
		const harness = await open();
		harness.dbLatencyMs = 20;
		harness.slowRunMs = 20;
		const ids = Array.from({ length: 60 }, (_, index) => `evt_burst_${index}`);
		const answers = await Promise.all(ids.map((id) => post(harness, event(id))));
		expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
		const remembered = harness.remembered();
		expect(ids.filter((id) => !remembered.get(`chg_${id}`)?.includes('COMPLETED'))).toEqual([]);

		await harness.close();
		const restarted = await open(harness.restarted());
		restarted.dbLatencyMs = 20;
		const again = await Promise.all(ids.map((id) => post(restarted, event(id))));
		expect(again.map((answer) => answer.status)).toEqual(ids.map(() => 200));
		expect(restarted.executions).toHaveLength(0);
	});

	it('saves every status of a burst whose saves commit in another order than they were serialised (Postgres)', async () => {
		const harness = await open();
		harness.slowRunMs = 5;
		harness.saveCommitJitterMs = 150;
		const ids = Array.from({ length: 60 }, (_, index) => `evt_jitter_${index}`);
		const answers = await Promise.all(ids.map((id) => post(harness, event(id))));
		expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
		const statuses = storedStatuses(harness.workflowStaticData);
		expect(ids.filter((id) => !statuses.get(`chg_${id}`)?.includes('COMPLETED'))).toEqual([]);
	});

	it('asks a twin of an event in flight to retry later (409, Retry-After); once the first ran, the twin is a duplicate', async () => {
		const harness = await open();
		harness.slowRunMs = 400;
		const body = event('evt_twin');
		const first = post(harness, body);
		await new Promise((resolve) => setTimeout(resolve, 100));
		const twin = await post(harness, body, AbortSignal.timeout(5000));
		expect(twin).toMatchObject({ status: 409, retryAfter: expect.stringMatching(/^\d+$/) });
		expect((await first).status).toBe(200);
		const retry = await post(harness, body);
		expect(retry.status).toBe(200);
		expect(JSON.parse(retry.body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(ran(harness)).toEqual(['evt_twin']);
	});

	it('holds another event of the same transaction while one is in flight, then judges it against the first', async () => {
		const harness = await open();
		harness.slowRunMs = 400;
		const completed = post(harness, event('evt_ref_completed', 'chg_ref'));
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect((await post(harness, event('evt_ref_pending', 'chg_ref', 'PENDING'))).status).toBe(409);
		expect((await completed).status).toBe(200);
		const stale = await post(harness, event('evt_ref_pending', 'chg_ref', 'PENDING'));
		expect(JSON.parse(stale.body)).toEqual({ received: true, ignored: 'stale-status' });
		expect(ran(harness)).toEqual(['evt_ref_completed']);
	});

	it('lets another event of the transaction go on once the first one\'s execution is written (it may wait long for a slot), judged against the status the first brings', async () => {
		const harness = await open();
		harness.capacityWaitMs = 1500;
		const pending = post(harness, event('evt_ref_slot_pending', 'chg_ref_slot', 'PENDING'));
		await new Promise((resolve) => setTimeout(resolve, 300));
		const completed = await post(harness, event('evt_ref_slot_completed', 'chg_ref_slot'), AbortSignal.timeout(5000));
		expect(completed.status).toBe(200);
		expect((await pending).status).toBe(200);
		harness.capacityWaitMs = 0;
		const late = await post(harness, event('evt_ref_slot_late_pending', 'chg_ref_slot', 'PENDING'));
		expect(JSON.parse(late.body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(ran(harness).sort()).toEqual(['evt_ref_slot_completed', 'evt_ref_slot_pending']);
	});

	it('remembers an event n8n started although the sender had given up waiting: its retry is a duplicate', async () => {
		const harness = await open();
		harness.slowRunMs = 500;
		const body = event('evt_sender_gone');
		await expect(post(harness, body, AbortSignal.timeout(100))).rejects.toThrow();
		await new Promise((resolve) => setTimeout(resolve, 900));
		expect(ran(harness)).toEqual(['evt_sender_gone']);
		expect(JSON.parse((await post(harness, body)).body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(harness.remembered().get('chg_evt_sender_gone')).toEqual(['COMPLETED']);
	});

	it('holds the claim of an event whose written execution waits for a free slot long after its sender gave up: the retries never run it twice', async () => {
		const harness = await open();
		harness.capacityWaitMs = 1500;
		const body = event('evt_throttled');
		await expect(post(harness, body, AbortSignal.timeout(200))).rejects.toThrow();
		await new Promise((resolve) => setTimeout(resolve, 200)); // n8n sees the connection close
		// More than a minute passes (the concurrency queue is long) before the execution gets its slot.
		const realNow = Date.now.bind(Date);
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
		try {
			const retry = await post(harness, body, AbortSignal.timeout(5000));
			expect(retry.status).toBe(409);
			await until(() => harness.executions.length > 0);
			expect(JSON.parse((await post(harness, body)).body)).toEqual({ received: true, ignored: 'duplicate-event' });
			expect(ran(harness)).toEqual(['evt_throttled']);
		} finally {
			clock.mockRestore();
		}
	});

	it('remembers an event whose sender never saw the answer: its retry 15 minutes and 2,100 other transactions later is a duplicate', async () => {
		const harness = await open();
		harness.capacityWaitMs = 400;
		const body = event('evt_unanswered');
		await expect(post(harness, body, AbortSignal.timeout(100))).rejects.toThrow();
		await until(() => harness.executions.length === 1);
		harness.capacityWaitMs = 0;
		const realNow = Date.now.bind(Date);
		let offsetMs = 0;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
		try {
			offsetMs = 15 * 60_000;
			for (let index = 0; index < 2100; index++) {
				const other = event(`evt_traffic_${index}`);
				const headers = signWebhook({ url: harness.url, scheme: 'request-style', secret: suite.sandbox.info.webhookSecret }, other, nowSeconds());
				expect((await harness.deliver(harnessRequest(harness.url, headers, Buffer.from(other)))).status).toBe(200);
			}
			const retry = await post(harness, body);
			expect(ran(harness).filter((id) => id === 'evt_unanswered')).toHaveLength(1);
			expect(JSON.parse(retry.body)).toEqual({ received: true, ignored: 'duplicate-event' });
		} finally {
			clock.mockRestore();
		}
	}, 180_000);

	it('refuses a delivery signed for the Production URL at the Test URL: a captured production event replayed while someone listens for a test event does not run', async () => {
		const production = await open();
		const listener = await open(production.testListener());
		const body = event('evt_replayed_to_test');
		const signedForProduction = signWebhook({ url: production.url, scheme: 'request-style', secret: suite.sandbox.info.webhookSecret }, body, nowSeconds());
		expect((await postRaw(production.url, signedForProduction, body)).status).toBe(200);
		expect((await postRaw(listener.url, signedForProduction, body)).status).toBe(401);
		expect(ran(listener)).toEqual([]);
	});

	// Before, the Signed Path was the only candidate, also at the Test URL: printed status 200, ranAsTest
	// [evt_replayed_behind_proxy]; and a test delivery signed over the Test URL was refused (401).
	it('refuses a production delivery replayed to the Test URL when the Signed Path is set (behind a reverse proxy), and runs a test delivery signed over the Test URL', async () => {
		const parameters = { resources: [], statuses: [], options: { signedPath: '/hooks/money' } };
		const production = await open(new WebhookHarness(suite.engine, { downstream: true, parameters }));
		const listener = await open(production.testListener());
		const body = event('evt_replayed_behind_proxy');
		const signedForProduction = signWebhook({ url: 'https://gw.example.com/hooks/money', scheme: 'request-style', secret: suite.sandbox.info.webhookSecret }, body, nowSeconds());
		expect((await postRaw(production.url, signedForProduction, body)).status).toBe(200);
		const replayed = await postRaw(listener.url, signedForProduction, body);
		const tested = await post(listener, event('evt_tested_behind_proxy'));
		expect({ replayed: replayed.status, tested: tested.status, ranAsTest: ran(listener) }).toEqual({ replayed: 401, tested: 200, ranAsTest: ['evt_tested_behind_proxy'] });
	});

	it('keeps test events (Execute step) apart: nothing saved, a test event does not block its production delivery', async () => {
		const production = await open();
		const listener = await open(production.testListener());
		const body = event('evt_tried_first');
		expect((await post(listener, body)).status).toBe(200);
		expect(JSON.parse((await post(listener, body)).body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(ran(listener)).toEqual(['evt_tried_first']);
		expect(listener.remembered().size).toBe(0);
		expect((await post(production, body)).status).toBe(200);
		expect(ran(production)).toEqual(['evt_tried_first']);
		expect(production.remembered().get('chg_evt_tried_first')).toEqual(['COMPLETED']);
	});

	it('reads the credential at most once a second for forged deliveries (each read is a database read and an isolate in n8n), refusing every one', async () => {
		const harness = await open();
		expect((await post(harness, event('evt_before_forgeries'))).status).toBe(200);
		const reads = jest.spyOn(suite.engine.credentials, 'getDecrypted');
		const forged = (id: string) => {
			const body = event(id);
			const headers = signWebhook({ url: harness.url, scheme: 'request-style', secret: 'not-the-secret' }, body, nowSeconds());
			return postRaw(harness.url, headers, body);
		};
		try {
			const started = Date.now();
			const answers = await Promise.all(Array.from({ length: 200 }, (_, index) => forged(`evt_forged_${index}`)));
			expect(answers.filter((answer) => answer.status !== 401)).toEqual([]);
			expect(reads.mock.calls.length).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / FRESH_MS));
			expect((await post(harness, event('evt_among_forgeries'))).status).toBe(200);
			expect(ran(harness)).toEqual(['evt_before_forgeries', 'evt_among_forgeries']);
		} finally {
			reads.mockRestore();
		}
	});

	// Before, every delivery that arrived while a read was under way read the credential too: printed
	// credentialReads 50. (The same held for the once-a-minute read of a valid stream.)
	it('reads the credential once for a burst of forged deliveries that arrives once the secret read is stale (each read under way for 100 ms)', async () => {
		const harness = await open();
		expect((await post(harness, event('evt_before_forged_burst'))).status).toBe(200);
		const reads = slowCredentialReads(100);
		try {
			await later(11_000, async () => {
				const forged = (id: string) => {
					const body = event(id);
					return postRaw(harness.url, signWebhook({ url: harness.url, scheme: 'request-style', secret: 'not-the-secret' }, body, nowSeconds()), body);
				};
				const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => forged(`evt_forged_burst_${index}`)));
				expect(answers.filter((answer) => answer.status !== 401)).toEqual([]);
			});
			expect({ credentialReads: reads.mock.calls.length }).toEqual({ credentialReads: 1 });
		} finally {
			reads.mockRestore();
		}
	});

	// Before, the secret was cached for a minute and read again only after a failure: printed status 200,
	// ran [evt_before_rotation, evt_signed_with_old_secret].
	it(`refuses a delivery signed with the Webhook Secret the credential no longer holds (replaced after a leak), ${FRESH_MS} ms after the change; one signed with the new secret runs`, async () => {
		const harness = await open();
		const oldSecret = suite.sandbox.info.webhookSecret;
		expect((await post(harness, event('evt_before_rotation'))).status).toBe(200);
		suite.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(suite.sandbox.info, { webhookSecret: 'the-new-secret' }));
		try {
			const signedWith = (secret: string, body: string) => signWebhook({ url: harness.url, scheme: 'request-style', secret }, body, nowSeconds());
			const answers = await later(FRESH_MS, async () => {
				const old = event('evt_signed_with_old_secret');
				const renewed = event('evt_signed_with_new_secret');
				return [(await postRaw(harness.url, signedWith(oldSecret, old), old)).status, (await postRaw(harness.url, signedWith('the-new-secret', renewed), renewed)).status];
			});
			expect({ answers, ran: ran(harness) }).toEqual({ answers: [401, 200], ran: ['evt_before_rotation', 'evt_signed_with_new_secret'] });
		} finally {
			suite.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(suite.sandbox.info));
		}
	});

	// Before, a read that failed (n8n's database pool closing as a webhook process shut down, in the
	// queue CI run of 50e7d4e) answered 401 receiver-not-configured: a backstop took it for a wrong secret.
	it('answers 503 (retry) when the credential cannot be read, starting nothing; once it can, the retry runs', async () => {
		const harness = await open();
		const reads = jest.spyOn(suite.engine.credentials, 'getDecrypted').mockRejectedValue(new Error('Cannot use a pool after calling end on the pool'));
		const body = event('evt_credential_unreadable');
		try {
			const answer = await later(FRESH_MS, async () => await post(harness, body));
			expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status: 503, body: { success: false, error: 'receiver-unavailable' } });
		} finally {
			reads.mockRestore();
		}
		expect(ran(harness)).toEqual([]);
		const retried = await later(2 * FRESH_MS, async () => await post(harness, body));
		expect(retried.status).toBe(200);
		expect(ran(harness)).toEqual(['evt_credential_unreadable']);
	});

	it('refuses an event without a reference (400 missing-reference): the memory could not recognise it when it came again', async () => {
		const harness = await open();
		const body = JSON.stringify({ id: 'evt_no_reference', event: 'charge.completed', created_at: new Date().toISOString(), data: { type: 'charge', status: { code: 1, label: 'COMPLETED' } } });
		const answer = await post(harness, body);
		expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status: 400, body: { success: false, error: 'missing-reference' } });
		expect(ran(harness)).toEqual([]);
	});

	// Documented limit, not fixed (docs/webhook-memory.md): a webhook request shows the node its own
	// node only (getWorkflow() is the workflow's id, name and active flag), so the trigger cannot tell
	// a node removed from the workflow from one that has not been called yet in this process.
	it.failing('carries no memory of a trigger node the workflow no longer has (replaced in the editor): each save would write it again, 550 kB at its capacity', async () => {
		const first = await open();
		expect((await post(first, event('evt_old_node'))).status).toBe(200);
		const stored = first.workflowStaticData;
		const oldMemory = stored.global.moneyTriggerMemory.nodes[first.node.id] as { records: string };
		expect(oldMemory.records.length).toBe(11);
		// The same workflow row, its trigger node replaced by a new one (a new node id), in a new process.
		stored.global.moneyTriggerMemory = { writer: 'another-process:1', nodes: { 'replaced-node-id': oldMemory } };
		const replaced = await open(new WebhookHarness(suite.engine, { downstream: true, parameters: { resources: [], statuses: [] } }, { node: { ...first.node, id: 'new-node-id' }, storedStaticData: JSON.stringify(stored) }));
		expect((await post(replaced, event('evt_new_node'))).status).toBe(200);
		expect(Object.keys(replaced.workflowStaticData.global.moneyTriggerMemory.nodes)).toEqual(['new-node-id']);
	});
	it('runs once a completion delivered as a bare envelope, then handed over by a backstop, or the other way round: its resource read from its amount\'s sign, or, when nothing names it, the hand-over judged against it', async () => {
		const harness = await open();
		const bare = (reference: string, amount?: number) =>
			JSON.stringify({ reference, status: { code: 1, label: 'COMPLETED' }, ...(amount === undefined ? {} : { amount: { value: amount, currency: 'XOF' } }), channel: 'psp-a-tg' });
		const handOver = async (reference: string, resource: 'charge' | 'payout' = 'charge') => {
			const wrapped = { id: `poll_${reference}`, event: `${resource}.completed`, created_at: new Date().toISOString(), data: { reference, type: resource, status: { code: 1, label: 'COMPLETED' } } };
			const body = handOverBody({ node: 'backstop', event: wrapped });
			return await postRaw(harness.url, { [HAND_OVER_HEADER]: signHandOver(suite.sandbox.info.webhookSecret, harness.url, body) }, body);
		};
		expect((await post(harness, bare('chg_bare_first'))).status).toBe(200);
		expect((await handOver('chg_bare_first')).status).toBe(200);
		expect((await handOver('chg_handed_first')).status).toBe(200);
		expect((await post(harness, bare('chg_handed_first'))).status).toBe(200);
		expect((await post(harness, bare('pay_signed', -100))).status).toBe(200);
		expect((await handOver('pay_signed', 'payout')).status).toBe(200);
		expect((await handOver('X-shared', 'charge')).status).toBe(200);
		expect((await post(harness, bare('X-shared', -100))).status).toBe(200);
		await until(() => harness.executions.length >= 5);
		await sleep(500);
		const runs = harness.executions.map((run) => `${run.output(harness.node.name)[0]?.json.resource}:${run.output(harness.node.name)[0]?.json.reference}`);
		expect(runs).toEqual(['null:chg_bare_first', 'charge:chg_handed_first', 'payout:pay_signed', 'charge:X-shared', 'payout:X-shared']);
	});
});

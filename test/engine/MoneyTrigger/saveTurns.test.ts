import { setTimeout as sleep } from 'node:timers/promises';

import { DEFAULT_WEBHOOK_DELIVERY } from '../../../sandbox/config';
import { WebhookHarness } from '../../harness/webhook';
import { deliverySuite } from './support';

/**
 * The save turns (nodes/MoneyTrigger/memory/saveTurns.ts; docs/webhook-memory.md): deliveries of a
 * workflow that will have n8n save its static data wait, in webhook(), until the one before was
 * answered. The paths an adversarial review found, against the harness's model of n8n 2.41's
 * webhook path; `it.failing` marks the two limits the docs name.
 */

describe('Money Trigger: deliveries take turns to have the static data saved', () => {
	const suite = deliverySuite();
	const { open, event, post, ran } = suite;

	/** The sandbox's sender: up to 6 attempts, 10 s each, 0.5 s, 1 s, 2 s, 4 s, 8 s apart; Retry-After is not read. */
	async function sendLikeTheSandbox(harness: WebhookHarness, body: string): Promise<number[]> {
		const { maxAttempts, baseDelayMs, timeoutMs } = DEFAULT_WEBHOOK_DELIVERY;
		const statuses: number[] = [];
		for (let attempt = 1; attempt <= maxAttempts; attempt++) {
			const status = await post(harness, body, AbortSignal.timeout(timeoutMs)).then(
				(answer) => answer.status,
				() => 0,
			);
			statuses.push(status);
			if (status >= 200 && status < 300) return statuses;
			if (attempt < maxAttempts) await sleep(baseDelayMs * 2 ** (attempt - 1));
		}
		return statuses;
	}

	it('keeps an event claimed while it waits for its turn: a retry once the queue of turns has taken over 10 minutes is not run a second time', async () => {
		const harness = await open();
		// The head of the queue holds the turn while its written execution waits for a free slot.
		harness.capacityWaitMs = 2500;
		const head = post(harness, event('evt_turn_head'));
		await sleep(300);
		harness.capacityWaitMs = 0;
		const body = event('evt_turn_queued');
		const queued = post(harness, body);
		await sleep(300);
		// Stands for a long queue of turns (N8N_CONCURRENCY_PRODUCTION_LIMIT, 120+ deliveries ahead each
		// holding its turn up to 5 s): more than 10 minutes later the event still waits for its turn.
		const realNow = Date.now.bind(Date);
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
		try {
			const retry = await post(harness, body, AbortSignal.timeout(15_000));
			const answers = await Promise.all([head, queued]);
			expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
			const retryRanNothing = retry.status === 409 || retry.body.includes('"duplicate-event"');
			expect({ retry: retry.status, retryRanNothing, runs: ran(harness).filter((id) => id === 'evt_turn_queued').length }).toEqual({ retry: retry.status, retryRanNothing: true, runs: 1 });
		} finally {
			clock.mockRestore();
		}
	});

	it('does not let a turn whose save is under way be skipped: a save slower than 5 s (a Postgres pool wait) is not overwritten by an older copy', async () => {
		const harness = await open();
		harness.slowSaves = { count: 1, ms: 6000 }; // serialised now, reaches the row 6 s later (a wait for a connection of the pool)
		const first = post(harness, event('evt_slow_save'));
		await sleep(200);
		const second = await post(harness, event('evt_after_slow_save'));
		expect(second.status).toBe(200);
		expect((await first).status).toBe(200);
		const remembered = harness.remembered();
		expect(['evt_slow_save', 'evt_after_slow_save'].filter((id) => !remembered.get(`chg_${id}`)?.includes('COMPLETED'))).toEqual([]);

		await harness.close();
		const restarted = await open(harness.restarted());
		expect(JSON.parse((await post(restarted, event('evt_after_slow_save'))).body)).toEqual({ received: true, ignored: 'duplicate-event' });
		expect(ran(restarted)).toEqual([]);
	}, 30_000);

	// Documented limit, not fixed: a turn skipped after STUCK_TURN_MS is still to save; once the turn
	// after it was granted, nothing in the process can keep the two saves apart (n8n serialises and
	// sends each save on its own). The missing status is written again by the next save of the workflow.
	it.failing('leaves no older copy last when a turn skipped after 5 s (its execution waiting for a slot) saves at the same time as the turn after it', async () => {
		const harness = await open();
		harness.slowSaves = { count: 1, ms: 1500 }; // the first save's UPDATE reaches the row after the second's
		// The first execution waits 8 s for a slot; the second (granted its turn after 5 s) takes 3 s to
		// be written, so the first's copy is serialised before the second's status is in it, and reaches
		// the row after the second's save.
		harness.capacityWaitMs = 8000;
		const first = post(harness, event('evt_skipped_turn'));
		await sleep(300);
		harness.capacityWaitMs = 0;
		harness.slowRunMs = 3000;
		const second = post(harness, event('evt_after_skipped_turn'));
		expect((await Promise.all([first, second])).map((answer) => answer.status)).toEqual([200, 200]);
		const remembered = harness.remembered();
		expect(['evt_skipped_turn', 'evt_after_skipped_turn'].filter((id) => !remembered.get(`chg_${id}`)?.includes('COMPLETED'))).toEqual([]);
	}, 30_000);

	it('runs the COMPLETED event of a charge whose PENDING event waits for its turn behind executions waiting for a slot (the sandbox\'s sender gives up after 6 attempts, 15.5 s of 409s)', async () => {
		const harness = await open();
		// N8N_CONCURRENCY_PRODUCTION_LIMIT: every written execution waits 6 s for a free slot.
		harness.capacityWaitMs = 6000;
		const ahead = ['evt_slot_1', 'evt_slot_2', 'evt_slot_3', 'evt_slot_4'].map((id) => post(harness, event(id)));
		await sleep(200);
		const pending = post(harness, event('evt_ref_queue_pending', 'chg_ref_queue', 'PENDING'));
		await sleep(300);
		const attempts = await sendLikeTheSandbox(harness, event('evt_ref_queue_completed', 'chg_ref_queue'));
		await Promise.all([...ahead, pending]);
		// The sender may give up waiting (10 s per attempt) so long as the trigger goes on with the event: it must run once.
		const deadline = Date.now() + 30_000;
		while (!ran(harness).includes('evt_ref_queue_completed') && Date.now() < deadline) await sleep(200);
		const runs = ran(harness).filter((id) => id === 'evt_ref_queue_completed').length;
		expect({ attempts: attempts.map((status) => (status === 0 ? 'timed out' : status)), runs }).toEqual({ attempts: expect.anything(), runs: 1 });
	}, 120_000);

	// Documented limit, not fixed: an event answered without a run (filtered, duplicate or stale
	// status, not confirmed) commits and has n8n save, so it takes its turn like any other; behind
	// executions waiting for a slot it waits up to STUCK_TURN_MS for each delivery ahead.
	it.failing('answers an event that starts no run (filtered) without waiting 5 s for each delivery ahead whose execution waits for a slot', async () => {
		const harness = await open(new WebhookHarness(suite.engine, { downstream: true, parameters: { resources: [], statuses: ['COMPLETED'] } }));
		harness.capacityWaitMs = 6000;
		const ahead = ['evt_filter_slot_1', 'evt_filter_slot_2', 'evt_filter_slot_3'].map((id) => post(harness, event(id)));
		await sleep(200);
		const started = Date.now();
		const filtered = await post(harness, event('evt_filtered_pending', 'chg_filtered', 'PENDING'));
		const waitedMs = Date.now() - started;
		await Promise.all(ahead);
		expect(JSON.parse(filtered.body)).toEqual({ received: true, ignored: 'filtered' });
		expect({ waitedUnder2s: waitedMs < 2000, waitedMs: Math.round(waitedMs / 1000) * 1000 }).toEqual({ waitedUnder2s: true, waitedMs: 0 });
	}, 60_000);
});

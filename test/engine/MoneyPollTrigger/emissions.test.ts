import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { pollTriggerSetup } from './support';

/*
 * Polls whose execution n8n cannot create (nodes/MoneyPollTrigger/polling/emissions.ts): the
 * harness hands the emitted items to n8n's emit as each n8n line does (test/harness/poll.ts) and
 * fails the creation of the execution, as SQLite's write lock or a full Postgres pool does.
 */
describe('Money Poll Trigger: a poll whose execution n8n cannot create', () => {
	const { env, poller } = pollTriggerSetup();

	const references = (items: INodeExecutionData[] | null | undefined) => (items ?? []).map((item) => item.json.reference as string);
	const executed = (trigger: ReturnType<typeof poller>) =>
		trigger.executions.flatMap((run) => run.output(trigger.node.name)).map((item) => `${item.json.reference}:${(item.json as IDataObject).status}`);
	const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

	async function seedCompleted(count: number, fromMs: number, toMs: number, batch: string): Promise<string[]> {
		await env.sandbox.control.seed({ resource: 'charge', count, status: 'COMPLETED', createdAtFrom: at(fromMs), createdAtTo: at(toMs), metadata: { batch } });
		return (await env.sandbox.control.ledger()).charges.filter((entry) => (entry.metadata as IDataObject | null)?.batch === batch).map((entry) => entry.reference);
	}

	it('emits again, once, the events n8n 2.x could not start an execution for (it rejects the done promise)', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await trigger.poll();
		const lost = await seedCompleted(3, 100, 300, 'lost');

		trigger.failNextStarts = 1;
		const failed = await trigger.poll();
		expect(references(failed.notStarted).sort()).toEqual([...lost].sort());
		expect(trigger.executions).toHaveLength(0);

		const again = await trigger.poll();
		expect(references(again.items).sort()).toEqual([...lost].sort());
		expect(await trigger.poll()).toEqual({ items: null });
		expect(executed(trigger).sort()).toEqual(lost.map((reference) => `${reference}:COMPLETED`).sort());
	});

	it('emits them again on n8n 1.x, which never settles the done promise, once a later emit of the trigger has its execution', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		trigger.n8nLine = '1.x';
		await trigger.poll();
		const lost = await seedCompleted(3, 100, 300, 'lost');
		trigger.failNextStarts = 1;
		await trigger.poll();
		// Nothing new: nothing says yet that n8n did not create it.
		expect(await trigger.poll()).toEqual({ items: null });

		const later = await seedCompleted(1, 400, 400, 'later');
		expect(references((await trigger.poll()).items)).toEqual(later);
		expect(references((await trigger.poll()).items).sort()).toEqual([...lost].sort());
		expect(await trigger.poll()).toEqual({ items: null });
		expect(executed(trigger).sort()).toEqual([...lost, ...later].map((reference) => `${reference}:COMPLETED`).sort());
	});

	it('does not emit again the events of an execution that started and was cancelled', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await trigger.poll();
		const cancelled = await seedCompleted(2, 100, 200, 'cancelled');
		trigger.cancelNextRuns = 1;
		expect(references((await trigger.poll()).items).sort()).toEqual([...cancelled].sort());
		expect(await trigger.poll()).toEqual({ items: null });
		expect(executed(trigger)).toHaveLength(2);
	});

	async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
	}

	it('keeps the events n8n 2.x could not start where a restart finds them, and emits them once after it', async () => {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await trigger.poll();
		const lost = await seedCompleted(3, 100, 300, 'lost');

		// The poll's emit and the emit a moment later fail; n8n stops before the next try.
		trigger.failNextStarts = 2;
		expect(references((await trigger.poll()).notStarted).sort()).toEqual([...lost].sort());
		await until(() => trigger.emits >= 2, 30_000);
		await trigger.restart();
		for (let poll = 0; poll < 3; poll++) await trigger.poll();

		expect(executed(trigger).sort()).toEqual(lost.map((reference) => `${reference}:COMPLETED`).sort());
	});

	/** A trigger whose poll of `count` completions n8n 2.x could not start, once the emit a moment later has run. */
	async function startedAgain(count: number) {
		const trigger = poller({ resource: 'charge', statuses: ['COMPLETED'] });
		await trigger.poll();
		const lost = await seedCompleted(count, 100, 300, 'lost');
		trigger.failNextStarts = 1;
		await trigger.poll();
		await until(() => trigger.executions.length > 0, 30_000);
		await trigger.settled();
		return { trigger, lost };
	}

	it('emits once, a moment later, the events n8n 2.x could not start, without waiting for the next poll', async () => {
		const { trigger, lost } = await startedAgain(3);
		expect(executed(trigger).sort()).toEqual(lost.map((reference) => `${reference}:COMPLETED`).sort());
		const later = await seedCompleted(1, 400, 400, 'later');
		expect(references((await trigger.poll()).items)).toEqual(later);
		await trigger.restart();
		expect(await trigger.poll()).toEqual({ items: null });
		expect(executed(trigger)).toHaveLength(4);
	});

	it('emits again after a restart the events of a retry n8n started when the trigger has emitted nothing since (at least once, here twice)', async () => {
		const { trigger, lost } = await startedAgain(2);
		await trigger.restart();
		await trigger.poll();
		expect(executed(trigger).sort()).toEqual([...lost, ...lost].map((reference) => `${reference}:COMPLETED`).sort());
	});
});


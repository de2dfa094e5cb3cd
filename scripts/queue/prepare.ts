/**
 * What the queue-mode tier (scripts/test-queue.ts) and the bench's `queue` group
 * (bench/figures/queue.ts) do on a started topology before their runs: import the credential and
 * the workflows, log in, activate the webhook-started workflows, raise the sandbox's payout
 * velocity; the scenarios' context.
 */

import { CREDENTIAL, CREDENTIAL_TYPE } from '../../test/e2e/workflows';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import * as rt from '../n8n';
import type { QueueContext } from './context';
import type { RunningTopology } from './topology';
import * as wf from './workflows';

/** The owner the main is set up with (topology.start's `owner`); prepareQueue logs in as it. */
export const OWNER = { email: 'queue-owner@example.com', password: 'Queue-owner-pass-1', firstName: 'Queue', lastName: 'Owner' };

/** The sandbox's payout velocity is raised for queue mode, and the credential says so: the Money node paces payout runs to the credential's limit. */
const QUEUE_VELOCITY_LIMIT = 1_000_000;

/** Import the credential and the workflows, log in, activate the webhook-started workflows; the scenarios' context. */
export async function prepareQueue(topology: RunningTopology, { concurrency, log }: { concurrency: number; log: (msg: string) => void }): Promise<QueueContext> {
	const { main, sandbox } = topology;
	const ids = { payoutsRef: 'queuePayoutsRef', payoutsDefault: 'queuePayoutsDefault', trigger: 'queueMoneyTrigger', poll: 'queueMoneyPoll' };
	const paths = { payoutsRef: 'queue-payouts-ref', payoutsDefault: 'queue-payouts-default' };
	const trigger = wf.moneyTrigger(ids.trigger);
	const workflows = [
		wf.payoutBatch(ids.payoutsRef, paths.payoutsRef, { withReference: true }),
		wf.payoutBatch(ids.payoutsDefault, paths.payoutsDefault, { withReference: false }),
		trigger.workflow,
		wf.pollTrigger(ids.poll),
	];
	const cred = { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(sandbox.info, { velocityLimit: QUEUE_VELOCITY_LIMIT }) };
	await rt.importJson('import:credentials', [cred], { env: main.env });
	await rt.importJson('import:workflow', workflows, { env: main.env });
	const session = await rt.login(main.url, OWNER.email, OWNER.password);
	const api = rt.publicApi(main.url, await rt.createApiKey(session, { label: 'queue' }));
	for (const id of [ids.payoutsRef, ids.payoutsDefault, ids.trigger]) await api.activateWorkflow(id);
	// Thousands of payouts in minutes: far over the default 20 per 5 minutes.
	await sandbox.control.updateClient(sandbox.info.clientId, { limits: { velocityLimit: QUEUE_VELOCITY_LIMIT } });
	await sandbox.control.resetCounters();
	log(`imported the credential and ${workflows.length} workflows; activated the payout and trigger workflows`);
	return {
		ids,
		paths,
		session,
		api,
		triggerWebhookId: trigger.webhookId,
		topology,
		control: sandbox.control,
		info: sandbox.info,
		output: rt.nodeOutput,
		error: rt.executionError,
		concurrency,
		log,
	};
}

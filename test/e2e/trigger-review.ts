/**
 * Findings of an adversarial review of the Money Trigger, in a real n8n server. NOT registered in
 * scripts/e2e.ts on purpose: each `REVIEW:` check fails on the trigger as reviewed, and passes once
 * the finding is fixed (then move it to the case file of its area). To run it, make a copy of
 * scripts/e2e.ts whose CASE_MODULES is `[triggerReview]` (import * as triggerReview from
 * '../test/e2e/trigger-review'), then `npm run build && npx ts-node --transpile-only <the copy>`.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import type { CasePart, Check, E2eContext } from './case-setup';
import { waitRegistered } from './trigger-load';
import { chain, CREDENTIAL_TYPE, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const ALL_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];
/** A credential of its own: the check changes its Webhook Secret. */
const REVIEW_CREDENTIAL = { id: 'e2eMoneyCredReview1', name: 'Money sandbox (e2e review)' };

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const id = 'e2eTrigReview';
	const webhookId = webhookIdFor('e2e trigger review');
	const workflows = [
		chain(id, 'e2e money trigger review', [
			// Statuses empty: every status starts the workflow, also one outside the five.
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: [] }), { webhookId, cred: REVIEW_CREDENTIAL }),
			node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
		]),
	];
	const credentialData = moneyCredentialFor(info);
	const credentials = [{ id: REVIEW_CREDENTIAL.id, name: REVIEW_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: credentialData }];
	const url = () => `${ctx.n8n.url}/webhook/${webhookId}/${MONEY_TRIGGER_PATH}`;
	const run = crypto.randomBytes(3).toString('hex');

	function event(eventId: string, reference: string, status: string) {
		return {
			id: eventId,
			event: `charge.${status.toLowerCase()}`,
			created_at: new Date().toISOString(),
			data: {
				reference,
				type: 'charge',
				status: { code: ALL_STATUSES.includes(status) ? ALL_STATUSES.indexOf(status) : 9, label: status },
				amount: { value: 1000, currency: 'XOF' },
				counterpart_account: { identifier: 'GM-1001', channel: 'psp-a-tg', name: null },
				created_at: new Date().toISOString(),
			},
		};
	}

	/** The ids of the events the workflow ran, once n8n is quiet. */
	async function ran(): Promise<string[]> {
		await sleep(3000);
		const list = await ctx.api.listExecutions({ workflowId: id, includeData: true, limit: 1000 });
		return list
			.map((execution) => String(((ctx.output(execution, 'Money Trigger') || [])[0] || {}).id))
			.sort();
	}

	async function deliver(body: object): Promise<number | null> {
		const { statuses } = await control.deliverEvent(body, 1);
		return statuses[0];
	}

	async function ready(): Promise<void> {
		await ctx.api.activateWorkflow(id);
		await waitRegistered(url());
		await control.setWebhook(url());
	}

	const checks: Check[] = [
		{
			name: 'REVIEW: Money Trigger: a status label outside the five (SUCCESSFUL) and a redelivered PENDING: each event of the charge runs once',
			async fn() {
				await ready();
				const reference = `CH-review-other-${run}`;
				const pending = event(`evt_review_pending_${run}`, reference, 'PENDING');
				const successful = event(`evt_review_successful_${run}`, reference, 'SUCCESSFUL');
				const answers = [];
				for (const body of [pending, successful, pending, successful]) answers.push(await deliver(body));
				assert.deepEqual(answers, [200, 200, 200, 200]);
				const ids = (await ran()).filter((eventId) => eventId.includes('_review_'));
				assert.deepEqual(ids, [pending.id, successful.id].sort(), `ran ${JSON.stringify(ids)}`);
			},
		},
		{
			name: 'REVIEW: Money Trigger: a delivery signed with the Webhook Secret the credential no longer holds (changed in the editor after a leak) is refused with 401 and starts nothing',
			async fn() {
				await ready();
				const before = event(`evt_review_before_change_${run}`, `CH-review-before-${run}`, 'COMPLETED');
				assert.equal(await deliver(before), 200);
				// The user replaces the leaked secret in the credential (the editor's PATCH); the workflow stays published.
				const changed = await ctx.session.request('PATCH', `/rest/credentials/${REVIEW_CREDENTIAL.id}`, {
					name: REVIEW_CREDENTIAL.name,
					type: CREDENTIAL_TYPE,
					data: { ...credentialData, webhookSecret: `replaced-${run}` },
				});
				assert.ok(changed.status >= 200 && changed.status < 300, `the credential update was answered ${changed.status}: ${changed.text.slice(0, 300)}`);
				// The sandbox still signs with the old secret: a forger who holds it.
				const forged = event(`evt_review_old_secret_${run}`, `CH-review-old-secret-${run}`, 'COMPLETED');
				const status = await deliver(forged);
				const ids = await ran();
				// The same a minute later (the trigger's cache of the secret has expired): refused, so the
				// credential did change and the first was accepted on the cached, replaced secret.
				await sleep(61_000);
				const later = await deliver(event(`evt_review_old_secret_later_${run}`, `CH-review-old-secret-later-${run}`, 'COMPLETED'));
				ctx.note(`signed with the replaced secret: answered ${status} at once, ${later} a minute later`);
				assert.deepEqual({ status, ran: ids.includes(forged.id) }, { status: 401, ran: false }, `answered ${status}, ran ${JSON.stringify(ids)}`);
			},
		},
	];
	return { workflows, checks, credentials };
}

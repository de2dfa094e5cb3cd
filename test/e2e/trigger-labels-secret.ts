/**
 * Money Trigger in a real n8n server: every status of a transaction, each label as it came
 * (docs/decisions.md D2), and a Webhook Secret replaced in the credential while the workflow stays
 * published (docs/webhook-memory.md, "Forged deliveries").
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { moneyCredentialFor } from '../../sandbox/control/credential';
import { signWebhook } from '../../sandbox/domain/webhooks';
import { FRESH_MS } from '../../nodes/MoneyTrigger/webhookSecret';
import type { CasePart, Check, E2eContext } from './case-setup';
import { waitRegistered } from './trigger-load';
import { chain, CREDENTIAL_TYPE, MONEY_TRIGGER_PATH, moneyTriggerParams, node, webhookIdFor } from './workflows';

const ALL_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];
/** A credential of its own: a check changes its Webhook Secret. */
const LABELS_CREDENTIAL = { id: 'e2eMoneyCredLabels1', name: 'Money sandbox (e2e labels, secret)' };

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const id = 'e2eTrigLabelsSec';
	const webhookId = webhookIdFor('e2e trigger labels secret');
	const workflows = [
		chain(id, 'e2e money trigger labels secret', [
			// Statuses empty: every status starts the workflow, also one outside the five.
			node.moneyTrigger('Money Trigger', moneyTriggerParams({ statuses: [] }), { webhookId, cred: LABELS_CREDENTIAL }),
			node.set('Received', { received: '={{ $json.id }}' }, { includeOtherFields: true }),
		]),
	];
	const credentialData = moneyCredentialFor(info);
	const credentials = [{ id: LABELS_CREDENTIAL.id, name: LABELS_CREDENTIAL.name, type: CREDENTIAL_TYPE, data: credentialData }];
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

	/** Posts an event signed (request-style, as the sandbox signs) with `secret`; its answer's status. */
	async function postSigned(body: object, secret: string): Promise<number> {
		return (await answerTo(body, secret)).status;
	}

	async function answerTo(body: object, secret: string): Promise<{ status: number; text: string }> {
		const raw = JSON.stringify(body);
		const headers = signWebhook({ url: url(), scheme: 'request-style', secret }, raw, Math.floor(Date.now() / 1000));
		const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
		return { status: res.status, text: await res.text() };
	}

	async function setWebhookSecret(webhookSecret: string): Promise<void> {
		const changed = await ctx.session.request('PATCH', `/rest/credentials/${LABELS_CREDENTIAL.id}`, {
			name: LABELS_CREDENTIAL.name,
			type: CREDENTIAL_TYPE,
			data: { ...credentialData, webhookSecret },
		});
		assert.ok(changed.status >= 200 && changed.status < 300, `the credential update was answered ${changed.status}: ${changed.text.slice(0, 300)}`);
	}

	const checks: Check[] = [
		{
			name: 'Money Trigger: every status of a transaction runs once, each label as it came (PROCESSING, SUCCESSFUL, REFUNDED; COMPLETED then REFUNDED); an exact repeat and a PENDING after a final status do not',
			async fn() {
				await ready();
				const labels = `CH-labels-other-${run}`;
				const refunded = `CH-labels-refunded-${run}`;
				const processing = event(`evt_labels_processing_${run}`, labels, 'PROCESSING');
				const successful = event(`evt_labels_successful_${run}`, labels, 'SUCCESSFUL');
				const refund = event(`evt_labels_refunded_${run}`, labels, 'REFUNDED');
				const completed = event(`evt_labels_completed_${run}`, refunded, 'COMPLETED');
				const refundAfterCompleted = event(`evt_labels_refund_after_completed_${run}`, refunded, 'REFUNDED');
				const dropped = [
					event(`evt_labels_successful_again_${run}`, labels, 'SUCCESSFUL'),
					processing,
					event(`evt_labels_pending_late_${run}`, labels, 'PENDING'),
					event(`evt_labels_completed_pending_late_${run}`, refunded, 'PENDING'),
				];
				const runs = [processing, successful, refund, completed, refundAfterCompleted];
				const answers = [];
				for (const body of [...runs, ...dropped]) answers.push(await deliver(body));
				assert.deepEqual(answers, runs.concat(dropped).map(() => 200));
				const mine = new Set([...runs, ...dropped].map((body) => body.id));
				// The redelivered PROCESSING carries the first one's id: had it run again, the id would be there twice.
				const ids = (await ran()).filter((eventId) => mine.has(eventId));
				assert.deepEqual(ids, runs.map((body) => body.id).sort(), `ran ${JSON.stringify(ids)}`);
			},
		},
		{
			onN8n1: 'an n8n assumption, pinned on each line',
			name: `n8n assumption: n8n does not re-activate a published workflow when its credential changes: Money Trigger: a Webhook Secret replaced in the credential: deliveries signed with the old one are refused with 401 within ${FRESH_MS} ms and start nothing, the new one runs; emptied, the workflow stays published and refuses deliveries (401 receiver-not-configured, not 404)`,
			async fn() {
				await ready();
				const oldSecret = credentialData.webhookSecret;
				const newSecret = `replaced-${run}`;
				const before = event(`evt_labels_before_change_${run}`, `CH-labels-before-${run}`, 'COMPLETED');
				assert.equal(await postSigned(before, oldSecret), 200);
				// The user replaces the leaked secret in the credential (the editor's PATCH).
				await setWebhookSecret(newSecret);
				const changedAt = Date.now();
				try {
					// A forger who holds the old secret keeps sending until refused (each delivery's send time after the change).
					const oldSigned: Array<{ id: string; sentAfterMs: number; status: number }> = [];
					for (let attempt = 0; Date.now() - changedAt < FRESH_MS + 5000; attempt++) {
						const forged = event(`evt_labels_old_secret_${run}_${attempt}`, `CH-labels-old-secret-${run}-${attempt}`, 'COMPLETED');
						const sentAfterMs = Date.now() - changedAt;
						const status = await postSigned(forged, oldSecret);
						oldSigned.push({ id: forged.id, sentAfterMs, status });
						if (status === 401) break;
						await sleep(100);
					}
					const renewed = event(`evt_labels_new_secret_${run}`, `CH-labels-new-secret-${run}`, 'COMPLETED');
					const renewedStatus = await postSigned(renewed, newSecret);
					const afterRefusal = event(`evt_labels_old_after_${run}`, `CH-labels-old-after-${run}`, 'COMPLETED');
					const afterRefusalStatus = await postSigned(afterRefusal, oldSecret);
					const ids = await ran();
					const accepted = oldSigned.filter((delivery) => delivery.status !== 401);
					const refused = oldSigned.find((delivery) => delivery.status === 401);
					ctx.note(`signed with the replaced secret: ${accepted.length} accepted, the last sent ${accepted.at(-1)?.sentAfterMs ?? '-'} ms after the change; the first refused sent ${refused?.sentAfterMs ?? '-'} ms after it`);
					// Accepted only when sent within FRESH_MS of the change (plus a read already under way then).
					assert.ok(refused && accepted.every((delivery) => delivery.sentAfterMs <= FRESH_MS + 500), `the old secret was still accepted: ${JSON.stringify(oldSigned)}`);
					assert.deepEqual(
						{ renewedStatus, afterRefusalStatus, ranRefused: ids.includes(afterRefusal.id) || ids.includes(refused.id), ranRenewed: ids.includes(renewed.id) },
						{ renewedStatus: 200, afterRefusalStatus: 401, ranRefused: false, ranRenewed: true },
					);
					// Emptied: an activation now would fail (the trigger refuses to activate without a secret),
					// so a re-activation would unregister the webhook (404). n8n does not re-activate.
					await setWebhookSecret('');
					await sleep(FRESH_MS + 500);
					const emptied = await answerTo(event(`evt_labels_emptied_${run}`, `CH-labels-emptied-${run}`, 'COMPLETED'), newSecret);
					assert.deepEqual({ status: emptied.status, error: JSON.parse(emptied.text || '{}').error }, { status: 401, error: 'receiver-not-configured' });
				} finally {
					await setWebhookSecret(oldSecret);
				}
			},
		},
	];
	return { workflows, checks, credentials };
}

import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE, TRANSACTION_RESOURCES } from '../api/values';
import { resourceOptions } from '../api/options';
import { ANSWERED_BY_TRIGGER_HEADER, parseHandOver } from '../events/backstop';
import { confirmWithApi } from '../events/confirm';
import { channelsFilter, statusesFilter } from '../events/filterFields';
import { asStringList, passesFilters } from '../events/filters';
import { buildEventItem, type MoneyEventItem } from '../events/item';
import { statusOfEnvelope } from '../events/envelope';
import { parseWebhookEvent, type MoneyEvent } from '../events/parse';
import { publishRefusal } from './activation';
import { acknowledge, respond } from './answers';
import { claim, keepCheckpoint, type Delivery } from './memory/delivery';
import { isN8n1, workflowMemory } from './memory/workflowMemory';
import { verifyDelivery, WEBHOOK_NAME } from './verifyDelivery';

export class MoneyTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money Trigger',
		name: 'moneyTrigger',
		icon: { light: 'file:money.svg', dark: 'file:money.dark.svg' },
		group: ['trigger'],
		// Not 1: n8n evaluates an expression for every delivery to a webhook node of type version 1
		// (docs/decisions.md#d10). 2.1 refuses a workflow in which a later node writes static data (activation.ts).
		version: [2, 2.1],
		defaultVersion: 2.1,
		subtitle: '={{$parameter["resources"].join(", ")}}',
		description: 'Starts the workflow when the Money API reports a charge or payout status by webhook',
		defaults: { name: 'Money Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: MONEY_API_CREDENTIAL_TYPE, required: true }],
		triggerPanel: {
			header: '',
			executionsHelp: {
				inactive:
					"<b>To try the workflow</b>, click <b>Execute step</b> (or Execute workflow), then have one event sent to the <b>Test URL</b> within two minutes: set the Test URL as the webhook URL in the Money merchant dashboard and make a small real charge. When you are done testing, set the dashboard back to the <b>Production URL</b>: the Test URL answers only while the editor listens, and deliveries the API sends there meanwhile are retried, then lost.<br /><br /><b>What the trigger remembers</b>: n8n saves nothing while you test, so a test event is remembered only by this n8n process, apart from production: the same event sent to the Production URL later still runs.",
				active:
					"This workflow is published: each verified delivery to the <b>Production URL</b> starts one execution per event, found in the <a data-key=\"executions\">executions list</a>. Each status of a charge or payout runs once, whatever its label: the trigger saves every status each transaction came with, with the workflow, so an event delivered again, or a PENDING after a later status, starts nothing, also after a restart. It remembers the 50,000 transactions whose status changed most recently (and up to 1,000 more), whatever their age: a transaction is forgotten once 50,000 other transactions have changed status since its own last change (at 690 an hour, after about 72 hours), and a redelivered event of a transaction it forgot runs again. Beyond 50,000 the memory stops growing: at most 561 kB, which n8n reads and writes with every event (the README says what that costs). On n8n 1.x, which also stores the memory with every execution it saves, the workflow's Money Triggers remember 4,000 transactions together (about 6 hours at 690 an hour; about 52 kB stored with each execution): make the step after the trigger idempotent with a Business Reference derived from the event.",
			},
			activationHint:
				'Once the workflow does what you want, publish it and set the Production URL as the webhook URL in the Money merchant dashboard (in place of the Test URL if you tested with it): the Money API then delivers every status change there until it gets a 2xx answer.',
		},
		activationMessage:
			'Deliveries to the Production URL now start this workflow. Make sure the Money merchant dashboard sends webhooks to the Production URL, not the Test URL.',
		webhooks: [
			{
				name: WEBHOOK_NAME,
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: 'noData',
				path: 'money',
			},
		],
		properties: [
			{
				displayName:
					'The Money API has no endpoint to register webhooks: copy the Production URL above into the webhook settings of the Money merchant dashboard. Every delivery is verified with the Webhook Secret of the credential; the workflow cannot be published without it.',
				name: 'dashboardNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Resources',
				name: 'resources',
				type: 'multiOptions',
				options: resourceOptions(),
				default: [...TRANSACTION_RESOURCES],
				description: 'Which transactions start the workflow. Leave empty for both.',
			},
			statusesFilter,
			channelsFilter,
			{
				displayName: 'Confirm With the API',
				name: 'confirmWithApi',
				type: 'boolean',
				default: false,
				description:
					'Whether to read the charge or payout from the Money API before starting the workflow and output the state the API returns instead of the webhook body. A read at a status whose order against the event\'s is not known (FAILED for a COMPLETED event) runs the event as delivered, with confirmed false and api_status set.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Max Body Size (KB)',
						name: 'maxBodySizeKb',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 1024,
						description: 'Larger deliveries are refused with 413 before any parsing',
					},
					{
						displayName: 'Signature Scheme',
						name: 'signatureScheme',
						type: 'options',
						options: [
							{
								name: 'Either',
								value: 'either',
								description: 'Accept a valid request-style or body-HMAC signature',
							},
							{
								name: 'Request-Style (X-Hmac-Signature)',
								value: 'request-style',
								description: 'Signature over timestamp, POST, the URL path and the body hash',
							},
							{
								name: 'Body HMAC (X-Webhook-Signature)',
								value: 'body-hmac',
								description: 'Signature over the timestamp and the raw body',
							},
						],
						default: 'either',
					},
					{
						displayName: 'Signed Path',
						name: 'signedPath',
						type: 'string',
						default: '',
						placeholder: '/n8n/webhook/0b6a.../money',
						description:
							'For request-style signatures behind a reverse proxy that rewrites the path: the path (and query) of the Production URL as pasted into the dashboard, used in place of the path of n8n\'s Production URL. A delivery signed over the path it arrived on is accepted too; a test delivery is checked against the Test URL. Give each copy of the workflow its own.',
					},
				],
			},
		],
	};

	// Nothing is registered anywhere but in this process's memory (the Production URL, for a backstop
	// poll: events/backstop.ts), and nothing is written to the static data: n8n saves the static data as it
	// loaded it after these methods when one of them changed it, which would write back an older copy
	// of the trigger's memory over events saved meanwhile (docs/webhook-memory.md).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl(WEBHOOK_NAME);
				if (url && this.getMode() !== 'manual') {
					const memory = workflowMemory(`production:${this.getWorkflow().id ?? ''}`, isN8n1(this.getKnownNodeTypes()));
					memory.noteTrigger(this.getNode().name, { url, node: this.getNode().id });
				}
				return (await publishRefusal(this)) === null;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const refusal = await publishRefusal(this);
				if (refusal) throw refusal;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		this.getResponseObject().setHeader(ANSWERED_BY_TRIGGER_HEADER, 'money-trigger');
		const verified = await verifyDelivery(this);
		if (!verified.ok) return respond(this, verified);
		let body = verified.rawBody;
		if (verified.handOver) {
			const handOver = parseHandOver(body);
			if (!handOver) return respond(this, { status: 400, error: 'malformed-event' });
			if ('checkpoint' in handOver) {
				await keepCheckpoint(this, handOver.node, handOver.checkpoint);
				return acknowledge('checkpoint-kept');
			}
			body = Buffer.from(JSON.stringify(handOver.event));
		}
		const parsed = parseWebhookEvent(body);
		if (!parsed.ok) return respond(this, { status: 400, error: 'malformed-event' });
		const event = parsed.event;
		// Every event of the Money API is about a transaction (docs/decisions.md#d1); the memory knows
		// events by their transaction's status, so one without a reference could run twice.
		if (!event.reference) return respond(this, { status: 400, error: 'missing-reference' });

		const delivery = claim(this, { resource: event.resource, reference: event.reference, status: event.status });
		if (delivery === 'duplicate') return acknowledge('duplicate-event');
		if (delivery === 'stale') return acknowledge('stale-status');
		if (delivery === 'in-flight') return respond(this, { status: 409, error: 'event-in-flight', retryLater: true });
		// Should anything below throw, n8n answers 500 and the delivery's claim ends with that answer.
		return await handleClaimed(this, { ...event, reference: event.reference }, delivery, verified.handOver ? 'poll' : 'webhook');
	}
}

/** What the trigger does with an event it holds the claim on: answer it, or hand it to n8n to run. */
async function handleClaimed(
	context: IWebhookFunctions,
	event: MoneyEvent & { reference: string },
	delivery: Delivery,
	source: MoneyEventItem['source'],
): Promise<IWebhookResponseData> {
	let envelope = event.envelope;
	let resource = event.resource;
	let confirmed = false;
	let apiStatus: string | null | undefined;
	if (context.getNodeParameter('confirmWithApi', false) as boolean) {
		const outcome = await confirmWithApi(context, event);
		if (outcome.kind === 'unavailable') {
			delivery.release();
			const error = outcome.reason === 'read-lags' ? 'confirmation-pending' : 'confirmation-unavailable';
			return respond(context, { status: 503, error, retryLater: true });
		}
		if (outcome.kind === 'unordered') apiStatus = outcome.apiStatus;
		else {
			envelope = outcome.envelope;
			resource = outcome.resource;
			confirmed = true;
		}
	}

	if (!(await delivery.takeTurn())) {
		delivery.release();
		return respond(context, { status: 409, error: 'event-in-flight', retryLater: true });
	}
	const verdict = delivery.judge(statusOfEnvelope(envelope) ?? event.status);
	if (verdict !== 'run') {
		delivery.release();
		return acknowledge(verdict === 'duplicate' ? 'duplicate-event' : 'stale-status');
	}

	const item = buildEventItem({
		id: event.id,
		event: resource ? undefined : event.event,
		source,
		resource,
		envelope,
		occurredAt: event.occurredAt,
		confirmed,
		reportedStatus: event.status,
		apiStatus,
	});
	const filters = {
		resources: asStringList(context.getNodeParameter('resources', [])),
		statuses: asStringList(context.getNodeParameter('statuses', [])),
		channels: asStringList(context.getNodeParameter('channels', [])),
	};
	if (!passesFilters(filters, item)) {
		await delivery.settle();
		return acknowledge('filtered');
	}
	return { workflowData: await delivery.accept(context, item) };
}

import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import {
	asStringList,
	buildEventItem,
	DEFAULT_MAX_BODY_BYTES,
	envelopeOfReadResponse,
	EVENT_ID_HARD_CAP,
	EVENT_ID_REPLAY_WINDOW_SECONDS,
	eventMemoryOf,
	forgetEventId,
	hasSeenEventId,
	judgeTransition,
	lastKnownStatus,
	parseWebhookEvent,
	passesFilters,
	readRoute,
	rememberEventId,
	rememberStatus,
	resourceOfEnvelope,
	signedPathCandidates,
	statusOfEnvelope,
	verifyWebhookSignature,
	type MoneyEvent,
	type MoneyResource,
	type WebhookSchemeSetting,
} from '../shared/events';
import { moneyApiRequest } from '../shared/transport';
import { channelsFilter, resourceOptions, statusesFilter } from './descriptions';
import { EventClaims } from './eventClaims';

const WEBHOOK_NAME = 'default';

const recentEvents = new EventClaims(EVENT_ID_REPLAY_WINDOW_SECONDS * 1000, EVENT_ID_HARD_CAP);

const MISSING_SECRET_MESSAGE =
	'The Money API credential has no Webhook Secret, so deliveries cannot be verified. Add the webhook secret issued for this client to the credential, then activate the workflow again.';

interface Refusal {
	status: number;
	error: string;
}

type ConfirmOutcome =
	| { kind: 'confirmed'; envelope: IDataObject; resource: MoneyResource }
	| { kind: 'unknown' }
	| { kind: 'unavailable' };

function respond(context: IWebhookFunctions, refusal: Refusal): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(refusal.status, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify({ success: false, error: refusal.error }));
	return { noWebhookResponse: true };
}

/**
 * Answers 200 now and hands the event to n8n. Answering before n8n starts the execution is what
 * makes n8n save the event memory this delivery wrote: with the answer left to n8n it is sent after
 * the execution starts, and by then n8n no longer sees the static data as changed
 * (docs/webhook-memory.md).
 */
function accept(context: IWebhookFunctions, item: IDataObject): IWebhookResponseData {
	const res = context.getResponseObject();
	res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify({ received: true }));
	return { noWebhookResponse: true, workflowData: [context.helpers.returnJsonArray([item])] };
}

function acknowledge(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

async function readWebhookSecret(context: IWebhookFunctions | IHookFunctions): Promise<string> {
	const credentials = await context.getCredentials('moneyApi');
	const secret = credentials?.webhookSecret;
	return typeof secret === 'string' ? secret : '';
}

async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = context.getRequestObject();
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}

function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

async function confirmWithApi(context: IWebhookFunctions, event: MoneyEvent): Promise<ConfirmOutcome> {
	if (!event.reference) return { kind: 'unknown' };
	const candidates: MoneyResource[] = event.resource ? [event.resource] : ['charge', 'payout'];
	for (const resource of candidates) {
		try {
			const response = await moneyApiRequest.call(context, 'GET', readRoute(resource, event.reference), {
				retry: { maxRetries: 1 },
				timeoutMs: 8000,
			});
			const envelope = envelopeOfReadResponse(response);
			if (!envelope) return { kind: 'unavailable' };
			return { kind: 'confirmed', envelope, resource: resourceOfEnvelope(envelope) ?? resource };
		} catch (error) {
			if (isNotFound(error)) continue;
			context.logger.warn('Money Trigger could not confirm an event with the Money API; the sender will retry', {
				reference: event.reference,
				httpCode: error instanceof NodeApiError ? error.httpCode : undefined,
			});
			return { kind: 'unavailable' };
		}
	}
	return { kind: 'unknown' };
}

export class MoneyTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money Trigger',
		name: 'moneyTrigger',
		icon: { light: 'file:money.svg', dark: 'file:money.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["resources"].join(", ")}}',
		description: 'Starts the workflow when the Money API reports a charge or payout status by webhook',
		defaults: { name: 'Money Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'moneyApi', required: true }],
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
					'The Money API has no endpoint to register webhooks: copy the Production URL above into the webhook settings of the Money merchant dashboard. Every delivery is verified with the Webhook Secret of the credential; the workflow refuses to activate without it.',
				name: 'dashboardNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Resources',
				name: 'resources',
				type: 'multiOptions',
				options: resourceOptions,
				default: ['charge', 'payout'],
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
					'Whether to read the charge or payout from the Money API before starting the workflow and output the state the API returns instead of the webhook body',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
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
							'For request-style signatures behind a reverse proxy that rewrites the path: the path (and query) of the URL pasted into the dashboard. Leave empty to use the path the request arrived on and the path of the public webhook URL.',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const secret = await readWebhookSecret(this);
				if (secret === '') return false;
				const staticData = this.getWorkflowStaticData('node');
				return staticData.registeredUrl === this.getNodeWebhookUrl(WEBHOOK_NAME);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const secret = await readWebhookSecret(this);
				if (secret === '') throw new NodeOperationError(this.getNode(), MISSING_SECRET_MESSAGE);
				const staticData = this.getWorkflowStaticData('node');
				staticData.registeredUrl = this.getNodeWebhookUrl(WEBHOOK_NAME) ?? '';
				eventMemoryOf(staticData);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				delete staticData.registeredUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const scheme = (options.signatureScheme as WebhookSchemeSetting | undefined) ?? 'either';
		const maxBytes =
			typeof options.maxBodySizeKb === 'number' && options.maxBodySizeKb > 0
				? Math.floor(options.maxBodySizeKb * 1024)
				: DEFAULT_MAX_BODY_BYTES;

		let secret: string;
		try {
			secret = await readWebhookSecret(this);
		} catch (error) {
			this.logger.warn('Money Trigger refused a delivery: the credential could not be read', {
				error: error instanceof Error ? error.name : 'unknown',
			});
			return respond(this, { status: 401, error: 'receiver-not-configured' });
		}
		if (secret === '') return respond(this, { status: 401, error: 'receiver-not-configured' });

		const req = this.getRequestObject();
		const declaredLength = Number(req.headers['content-length']);
		if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
			return respond(this, { status: 413, error: 'body-too-large' });
		}
		const rawBody = await rawBodyOf(this);
		if (!rawBody) return respond(this, { status: 400, error: 'body-unreadable' });
		if (rawBody.length > maxBytes) return respond(this, { status: 413, error: 'body-too-large' });

		const verification = verifyWebhookSignature({
			scheme,
			secret,
			rawBody,
			headers: req.headers,
			signedPaths: signedPathCandidates({
				override: typeof options.signedPath === 'string' ? options.signedPath : undefined,
				requestUrl: req.originalUrl ?? req.url,
				publicWebhookUrl: this.getNodeWebhookUrl(WEBHOOK_NAME),
			}),
		});
		if (!verification.ok) return respond(this, { status: 401, error: verification.reason });

		const parsed = parseWebhookEvent(rawBody);
		if (!parsed.ok) return respond(this, { status: 400, error: 'malformed-event' });
		const event = parsed.event;

		const staticData = this.getWorkflowStaticData('node');
		const claimKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id}:${event.id}`;
		if (hasSeenEventId(staticData, event.id) || !recentEvents.claim(claimKey, Date.now())) {
			return acknowledge('duplicate-event');
		}
		if (!rememberEventId(staticData, event.id)) {
			recentEvents.release(claimKey);
			return respond(this, { status: 503, error: 'replay-memory-full' });
		}

		let envelope = event.envelope;
		let resource = event.resource;
		let confirmed = false;
		if (this.getNodeParameter('confirmWithApi', false) as boolean) {
			const outcome = await confirmWithApi(this, event);
			if (outcome.kind === 'unavailable') {
				forgetEventId(staticData, event.id);
				recentEvents.release(claimKey);
				return respond(this, { status: 503, error: 'confirmation-unavailable' });
			}
			if (outcome.kind === 'unknown') return acknowledge('not-confirmed');
			envelope = outcome.envelope;
			resource = outcome.resource;
			confirmed = true;
		}

		const status = statusOfEnvelope(envelope) ?? event.status;
		if (event.reference) {
			const verdict = judgeTransition(lastKnownStatus(staticData, resource, event.reference), status);
			if (verdict === 'duplicate') return acknowledge('duplicate-status');
			if (verdict === 'stale') return acknowledge('stale-status');
			rememberStatus(staticData, resource, event.reference, status);
		}

		const item = buildEventItem({
			id: event.id,
			event: resource ? undefined : event.event,
			source: 'webhook',
			resource,
			envelope,
			occurredAt: event.occurredAt,
			confirmed,
			reportedStatus: event.status,
		});

		const filters = {
			resources: asStringList(this.getNodeParameter('resources', [])),
			statuses: asStringList(this.getNodeParameter('statuses', [])),
			channels: asStringList(this.getNodeParameter('channels', [])),
		};
		if (!passesFilters(filters, item)) return acknowledge('filtered');

		return accept(this, item);
	}
}

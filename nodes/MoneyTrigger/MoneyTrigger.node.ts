import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';
import { resourceOptions, TRANSACTION_RESOURCES } from '../api/values';
import { confirmWithApi } from '../events/confirm';
import { channelsFilter, statusesFilter } from '../events/filterFields';
import { asStringList, passesFilters } from '../events/filters';
import { buildEventItem } from '../events/item';
import { statusOfEnvelope } from '../events/envelope';
import {
	EVENT_ID_HARD_CAP,
	EVENT_ID_REPLAY_WINDOW_SECONDS,
	eventMemoryOf,
	forgetEventId,
	hasSeenEventId,
	lastKnownStatus,
	rememberEventId,
	rememberStatus,
} from '../events/memory';
import { parseWebhookEvent } from '../events/parse';
import { judgeTransition } from '../events/statusOrder';
import {
	DEFAULT_MAX_BODY_BYTES,
	signedPathCandidates,
	verifyWebhookSignature,
	type WebhookSchemeSetting,
} from '../events/verification';
import { accept, acknowledge, MISSING_SECRET_MESSAGE, rawBodyOf, readWebhookSecret, respond } from './answers';
import { EventClaims } from './eventClaims';

const WEBHOOK_NAME = 'default';

const recentEvents = new EventClaims(EVENT_ID_REPLAY_WINDOW_SECONDS * 1000, EVENT_ID_HARD_CAP);

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
		credentials: [{ name: MONEY_API_CREDENTIAL_TYPE, required: true }],
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

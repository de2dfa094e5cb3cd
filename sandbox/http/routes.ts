import type { ClientState } from '../domain/clients';
import type { ListQuery, TieOrder } from '../domain/store';
import { CHANNELS, CHARGE_STATUSES, PAYOUT_STATUSES, type Channel, type Resource, type RouteSlug, type Status, type TransactionEnvelope } from '../domain/types';
import type { SandboxRuntime } from '../runtime';
import { ApiError, validationError, type ErrorFamily } from './errors';

export interface RouteContext {
	runtime: SandboxRuntime;
	client: ClientState;
	params: Record<string, string>;
	query: URLSearchParams;
	rawBody: Buffer;
	idempotencyKey: string | undefined;
}

export interface RouteResult {
	status: number;
	body: string | Record<string, unknown>;
	headers?: Record<string, string>;
}

export interface RouteDefinition {
	method: 'GET' | 'POST';
	pattern: RegExp;
	paramNames: string[];
	slug: RouteSlug;
	family: ErrorFamily;
	isCreate: boolean;
	handle(context: RouteContext): RouteResult;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A bound's instant. Without a zone designator it is wall time `wallClockOffsetMinutes` east of UTC
 * (SandboxConfig.naiveTimestampsOffsetMinutes; UTC by default), whatever the process's time zone.
 */
function boundaryMs(value: string, wallClockOffsetMinutes: number): number {
	const dateTime = DATE_ONLY.test(value) ? `${value}T00:00:00` : value.replace(' ', 'T');
	if (/(?:Z|[+-]\d{2}:?\d{2})$/.test(dateTime)) return Date.parse(dateTime);
	return Date.parse(`${dateTime}Z`) - wallClockOffsetMinutes * 60_000;
}

function parseBoundary(name: string, value: string | null, fields: Record<string, string>, isUpperBound: boolean, wallClockOffsetMinutes: number): number | undefined {
	if (value === null || value === '') return undefined;
	const parsed = ISO_8601.test(value) ? boundaryMs(value, wallClockOffsetMinutes) : Number.NaN;
	if (Number.isNaN(parsed)) {
		fields[name] = 'must be an ISO 8601 date or date-time';
		return undefined;
	}
	return isUpperBound && DATE_ONLY.test(value) ? parsed + DAY_MS - 1 : parsed;
}

function parsePositiveInteger(name: string, value: string | null, fallback: number, max: number, fields: Record<string, string>): number {
	if (value === null) return fallback;
	if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
		fields[name] = max === Number.MAX_SAFE_INTEGER ? 'must be an integer >= 1' : `must be an integer from 1 to ${max}`;
		return fallback;
	}
	return Number(value);
}

export function parseListQuery(resource: Resource, query: URLSearchParams, wallClockOffsetMinutes = 0, boundsExclusive = false, ties?: TieOrder): ListQuery {
	const fields: Record<string, string> = {};
	const page = parsePositiveInteger('page', query.get('page'), 1, Number.MAX_SAFE_INTEGER, fields);
	const limit = parsePositiveInteger('limit', query.get('limit'), 20, 100, fields);
	const allowedStatuses = resource === 'charge' ? CHARGE_STATUSES : PAYOUT_STATUSES;
	const status = query.get('status') ?? undefined;
	if (status !== undefined && !allowedStatuses.includes(status as Status)) fields.status = `must be one of ${allowedStatuses.join(', ')}`;
	const channel = query.get('channel') ?? undefined;
	if (channel !== undefined && !(CHANNELS as readonly string[]).includes(channel)) fields.channel = `must be one of ${CHANNELS.join(', ')}`;
	const startMs = parseBoundary('start_date', query.get('start_date'), fields, false, wallClockOffsetMinutes);
	const endMs = parseBoundary('end_date', query.get('end_date'), fields, true, wallClockOffsetMinutes);
	if (startMs !== undefined && endMs !== undefined && startMs > endMs) fields.end_date = 'must not be before start_date';
	if (Object.keys(fields).length > 0) throw validationError(fields);
	const exclusion = boundsExclusive ? 1 : 0;
	return {
		page,
		limit,
		status: status as Status | undefined,
		channel: channel as Channel | undefined,
		startMs: startMs === undefined ? undefined : startMs + exclusion,
		endMs: endMs === undefined ? undefined : endMs - exclusion,
		ties,
	};
}

function createRoute(resource: Resource) {
	return ({ runtime, client, rawBody, idempotencyKey }: RouteContext): RouteResult => {
		const outcome = runtime.service.create(resource, client, rawBody, idempotencyKey);
		if (!outcome.replayed) runtime.changed();
		return { status: outcome.status, body: outcome.body, headers: outcome.replayed ? { 'idempotent-replayed': 'true' } : {} };
	};
}

function getRoute(resource: Resource) {
	return ({ runtime, client, params }: RouteContext): RouteResult => {
		const tx = runtime.store.byRef(params.reference);
		if (!tx || tx.clientId !== client.clientId || tx.resource !== resource) {
			throw new ApiError(
				404,
				resource === 'charge' ? 'CHARGE_NOT_FOUND' : 'PAYOUT_NOT_FOUND',
				`${resource} ${params.reference} not found`,
			);
		}
		return { status: 200, body: { success: true, data: runtime.service.envelope(tx) } };
	};
}

function listRoute(resource: Resource) {
	return ({ runtime, client, query }: RouteContext): RouteResult => {
		const { naiveTimestampsOffsetMinutes, listBoundsExclusive, listRowMetadata } = runtime.config;
		const listQuery = parseListQuery(resource, query, naiveTimestampsOffsetMinutes ?? 0, listBoundsExclusive, runtime.nextTieOrder());
		const { items, total } = runtime.store.list(client.clientId, resource, listQuery);
		return {
			status: 200,
			body: {
				success: true,
				data: items.map((tx) => {
					const envelope: Partial<TransactionEnvelope> = runtime.service.envelope(tx);
					if (!listRowMetadata) delete envelope.metadata;
					return envelope;
				}),
				pagination: { page: listQuery.page, limit: listQuery.limit, total, pages: Math.ceil(total / listQuery.limit) },
			},
		};
	};
}

const TRANSACTION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

function transactionDetails({ runtime, client, params }: RouteContext): RouteResult {
	if (!TRANSACTION_ID.test(params.id)) {
		throw new ApiError(400, 'validation_failed', 'id must be 1 to 128 letters, digits or _ . : -');
	}
	const tx = runtime.store.byRefOrUniqueId(params.id);
	if (!tx || tx.clientId !== client.clientId) throw new ApiError(404, 'transaction_not_found', `transaction ${params.id} not found`);
	const { metadata, ...envelope } = runtime.service.envelope(tx);
	return { status: 200, body: { success: true, message: 'Transaction details retrieved', ...envelope, metadata } };
}

function account({ runtime, client }: RouteContext): RouteResult {
	const settings = client.settings;
	const wallet = client.primaryWallet();
	if (!settings.walletRetrievable || !wallet) throw new ApiError(404, 'account_not_found', 'wallet details could not be retrieved');
	const paymentLinkBase = runtime.config.paymentLinkBase;
	return {
		status: 200,
		body: {
			success: true,
			message: 'Account retrieved',
			id: settings.merchant.uniqueId,
			name: settings.merchant.name,
			type: settings.merchant.type,
			status: settings.merchant.status,
			country_code: settings.merchant.countryCode,
			phone_number: settings.merchant.phoneNumber,
			account: {
				number: wallet.number,
				balance: { value: wallet.balance, currency: wallet.currency },
				primary: true,
				payment_link: paymentLinkBase ? `${paymentLinkBase.replace(/\/$/, '')}/${encodeURIComponent(wallet.number)}` : null,
			},
			created_at: settings.merchant.createdAt,
			updated_at: settings.merchant.updatedAt,
		},
	};
}

function route(
	method: 'GET' | 'POST',
	path: string,
	slug: RouteSlug,
	handle: (context: RouteContext) => RouteResult,
): RouteDefinition {
	const paramNames: string[] = [];
	const pattern = new RegExp(
		`^${path.replace(/:([a-z]+)/g, (_match, name: string) => {
			paramNames.push(name);
			return '([^/]+)';
		})}$`,
	);
	return { method, pattern, paramNames, slug, family: slug.includes('charge') || slug.includes('payout') ? 'upper' : 'lower', isCreate: method === 'POST', handle };
}

export const ROUTES: RouteDefinition[] = [
	route('POST', '/money/v1/charge', 'post_money_v1_charge', createRoute('charge')),
	route('GET', '/money/v1/charge', 'get_money_v1_charge_list', listRoute('charge')),
	route('GET', '/money/v1/charge/:reference', 'get_money_v1_charge_reference', getRoute('charge')),
	route('POST', '/money/v1/payout', 'post_money_v1_payout', createRoute('payout')),
	route('GET', '/money/v1/payout', 'get_money_v1_payout_list', listRoute('payout')),
	route('GET', '/money/v1/payout/:reference', 'get_money_v1_payout_reference', getRoute('payout')),
	route('GET', '/money/v1/transaction-details/:id', 'get_money_v1_transaction_details_id', transactionDetails),
	route('GET', '/money/v1/account', 'get_money_v1_account', account),
];

export function matchRoute(method: string, pathname: string): { route: RouteDefinition; params: Record<string, string> } | null {
	for (const candidate of ROUTES) {
		if (candidate.method !== method) continue;
		const match = candidate.pattern.exec(pathname);
		if (!match) continue;
		const params: Record<string, string> = {};
		try {
			candidate.paramNames.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1])));
		} catch {
			return null;
		}
		return { route: candidate, params };
	}
	return null;
}

import { ApiError, byFamily, type ErrorFamily } from '../http/errors';
import type { FaultSpec } from './injector';

/**
 * The error an injected status fault answers with, in the route's envelope family (README, Faults);
 * `delay`, `drop` and `drop-after-commit` act on the connection in http/api-host.ts instead.
 */
export function faultAnswer(fault: FaultSpec, family: ErrorFamily): ApiError {
	switch (fault.kind) {
		case '404':
			// A read served by a replica that has not seen the transaction yet.
			return new ApiError(404, byFamily(family, 'TRANSACTION_NOT_FOUND', 'transaction_not_found'), 'not found (injected fault: a lagging read)');
		case '429':
			return new ApiError(429, 'rate_limit_exceeded', 'too many requests (injected fault)', undefined, {
				'retry-after': String(fault.retryAfterSeconds ?? 1),
			});
		case '500':
			return new ApiError(500, byFamily(family, 'INTERNAL_ERROR', 'internal_error'), 'unexpected failure (injected fault)');
		case '502':
			return new ApiError(502, byFamily(family, 'UPSTREAM_ERROR', 'service_unavailable'), 'upstream call failed (injected fault)');
		default:
			return new ApiError(503, byFamily(family, 'PROVIDER_UNAVAILABLE', 'service_unavailable'), 'provider temporarily unavailable (injected fault)');
	}
}

/** Charge and payout routes answer the upper-case envelope (7.1); details and account the lower-case one (7.2). */
export type ErrorFamily = 'upper' | 'lower';

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: Record<string, unknown>,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	body(family: ErrorFamily): Record<string, unknown> {
		if (family === 'lower') return { success: false, message: this.message, error_code: this.code };
		return this.details
			? { success: false, error_code: this.code, message: this.message, details: this.details }
			: { success: false, error_code: this.code, message: this.message };
	}
}

export function validationError(fields: Record<string, string>): ApiError {
	const names = Object.keys(fields);
	return new ApiError(400, 'VALIDATION_ERROR', `Invalid request: ${names.join(', ')}`, fields);
}

export const byFamily = (family: ErrorFamily, upper: string, lower: string): string => (family === 'upper' ? upper : lower);

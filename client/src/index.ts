export { PaymentsClient } from './client.ts';
export { ApiProblem, type ProblemBody } from './apiProblem.ts';
export { verifyWebhook, WebhookSignatureError, type WebhookHeaders } from './webhookSignature.ts';
export { ListRequest, listQueryString } from './listRequest.ts';
export type { ClientOptions, CallOptions, RetryOptions } from './transport.ts';
export type * from './types.ts';

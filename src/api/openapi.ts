/**
 * The service's contract as an OpenAPI 3.1 document, generated from the zod schemas that the CLI
 * validates requests with and the emulator checks answers against (schemas.ts), and from the
 * contract's words (contract.ts): the endpoints, their bodies and errors, the card proxy on its own
 * server, and the webhook body as the emulator assumes it. `paytx openapi` prints it;
 * schemas/openapi.json is the copy shipped in the package (`npm run schema`).
 *
 * JSON Schema cannot say what a zod refinement checks (a Luhn sum, a real date); what it can
 * (enumerations, patterns, formats) is added here from the contract's own constants.
 */
import * as z from 'zod'

import {
  API_PATHS,
  COUNTRY_CODE_PATTERN,
  CUSTOMER_GENDERS,
  CUSTOMER_TITLES,
  DEFAULT_API_KEY_HEADER,
  E164_PATTERN,
  FINAL_STATUSES,
  PRODUCTS,
  PROXY_KEY_HEADER,
  STATUSES,
  SUCCESS_STATUSES,
} from './contract.js'
import {
  cardRequestSchema,
  cardSchema,
  checkoutSuccessSchema,
  customerRequestSchema,
  customerSchema,
  serviceErrorBodySchema,
  transactionSchema,
  transactionStartRequestFields,
  transactionWebhookSchema,
} from './schemas.js'

type JsonSchema = Record<string, unknown> & {properties?: Record<string, JsonSchema>}

/** The JSON Schema of a zod schema, as a request (`input`) or an answer (`output`) reads it. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {target: 'draft-2020-12', io, unrepresentable: 'any'}) as JsonSchema
  delete json.$schema
  return json
}

/** Adds to the named properties what JSON Schema can say of them (in place). */
function describeProperties(schema: JsonSchema, additions: Record<string, JsonSchema>): JsonSchema {
  for (const [name, addition] of Object.entries(additions)) {
    const property = schema.properties?.[name]
    if (property) Object.assign(property, addition)
  }
  return schema
}

const ref = (name: string) => ({$ref: `#/components/schemas/${name}`})
const jsonContent = (name: string) => ({'application/json': {schema: ref(name)}})
const DATE_TIME = {type: 'string', format: 'date-time'}

const CUSTOMER_FIELD_FORMATS: Record<string, JsonSchema> = {
  title: {enum: [...CUSTOMER_TITLES]},
  gender: {enum: [...CUSTOMER_GENDERS]},
  date_of_birth: {format: 'date'},
  country_code: {pattern: COUNTRY_CODE_PATTERN.source},
  phone_number: {pattern: E164_PATTERN.source},
  email_address: {format: 'email'},
}

function componentSchemas(): Record<string, JsonSchema> {
  return {
    TransactionStatus: {
      type: 'string',
      enum: [...STATUSES],
      description: 'A transaction status. x-final-statuses never move again (UNKNOWN is not final); checkoutsuccess reports success: true for x-success-statuses.',
      'x-final-statuses': [...FINAL_STATUSES],
      'x-success-statuses': [...SUCCESS_STATUSES],
    },
    PaymentProduct: {type: 'string', enum: [...PRODUCTS]},
    CustomerRequest: describeProperties(jsonSchemaOf(customerRequestSchema(), 'input'), CUSTOMER_FIELD_FORMATS),
    Customer: describeProperties(jsonSchemaOf(customerSchema(), 'output'), {created_at: DATE_TIME, last_status_update: DATE_TIME}),
    CardRequest: describeProperties(jsonSchemaOf(cardRequestSchema(), 'input'), {
      expiry_month: {pattern: '^(0?[1-9]|1[0-2])$'},
      expiry_year: {pattern: '^\\d{4}$'},
      pan: {pattern: '^[0-9 -]{12,23}$', description: '12 to 19 digits passing the Luhn check'},
    }),
    Card: jsonSchemaOf(cardSchema(), 'output'),
    TransactionStartRequest: describeProperties(jsonSchemaOf(transactionStartRequestFields(), 'input'), {
      amount: {description: 'Minor units, e.g. 1499 for 14.99'},
      payment_product: ref('PaymentProduct'),
      customer_ip: {anyOf: [{format: 'ipv4'}, {format: 'ipv6'}]},
      webhook_transaction_update: {format: 'uri'},
    }),
    Transaction: describeProperties(jsonSchemaOf(transactionSchema(), 'output'), {
      amount: {pattern: '^\\d+$', description: 'Minor units as a decimal string, e.g. "1499"'},
      status: ref('TransactionStatus'),
      payment_product: ref('PaymentProduct'),
      created_at: DATE_TIME,
      last_status_update: DATE_TIME,
    }),
    CheckoutSuccess: describeProperties(jsonSchemaOf(checkoutSuccessSchema(), 'output'), {status: ref('TransactionStatus')}),
    Error: jsonSchemaOf(serviceErrorBodySchema(), 'output'),
    TransactionWebhook: jsonSchemaOf(transactionWebhookSchema(), 'output'),
  }
}

function errors(...codes: (400 | 401 | 404)[]): Record<string, unknown> {
  const words = {400: 'The request is not valid: details names each field by its path (body.amount).', 401: 'The key is missing or not valid.', 404: 'No such id.'}
  return Object.fromEntries(codes.map((code) => [String(code), {description: words[code], content: jsonContent('Error')}]))
}

const idParameter = {name: 'id', in: 'path', required: true, schema: {type: 'string'}, description: 'The transaction id'}

function paths(): Record<string, unknown> {
  return {
    [API_PATHS.customer]: {
      post: {operationId: 'createCustomer', summary: 'Create a customer', requestBody: {required: true, content: jsonContent('CustomerRequest')}, responses: {200: {description: 'The customer', content: jsonContent('Customer')}, ...errors(400, 401)}},
    },
    [API_PATHS.transactionStart]: {
      post: {
        operationId: 'startTransaction',
        summary: 'Start a transaction (card, sofort or dummy)',
        requestBody: {required: true, content: jsonContent('TransactionStartRequest')},
        responses: {200: {description: 'The transaction; details.approval_url is where the customer approves it', content: jsonContent('Transaction')}, ...errors(400, 401)},
      },
    },
    [API_PATHS.transaction('{id}').replace('%7Bid%7D', '{id}')]: {
      get: {operationId: 'getTransaction', summary: 'Read a transaction', parameters: [idParameter], responses: {200: {description: 'The transaction', content: jsonContent('Transaction')}, ...errors(401, 404)}},
    },
    [API_PATHS.checkoutSuccess('{id}').replace('%7Bid%7D', '{id}')]: {
      get: {operationId: 'getCheckoutSuccess', summary: 'Whether the transaction succeeded', parameters: [idParameter], responses: {200: {description: 'Its status and success', content: jsonContent('CheckoutSuccess')}, ...errors(401, 404)}},
    },
    [API_PATHS.tokenize('{proxyId}').replace('%7BproxyId%7D', '{proxyId}')]: {
      servers: [
        {url: 'https://test-tgapi.tokenex.com', description: 'card proxy, sandbox'},
        {url: 'https://tgapi.tokenex.com', description: 'card proxy, production'},
        {url: 'http://127.0.0.1:4010/h2h', description: 'card proxy of the paytx emulator'},
      ],
      post: {
        operationId: 'tokenizeCard',
        summary: 'Create a card through the card proxy (host-to-host)',
        security: [{proxyKey: []}],
        parameters: [{name: 'proxyId', in: 'path', required: true, schema: {type: 'string'}, description: 'The PROXY_ID issued for the merchant'}],
        requestBody: {required: true, content: jsonContent('CardRequest')},
        responses: {200: {description: 'The card record (its id under id, _id or token)', content: jsonContent('Card')}, ...errors(400, 401)},
      },
    },
  }
}

/** The OpenAPI 3.1 document of the service's contract as paytx `version` reads it. */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Transaction Service, as paytx reads it',
      version,
      description:
        'Generated by paytx from the schemas its CLI validates with and its emulator answers by. Where the service documents nothing, this follows the emulator’s assumptions (paytx emulator assumptions): amounts in minor units, answered as strings; errors as {code, message, details}.',
    },
    servers: [
      {url: 'https://sandbox.spryngpayments.com', description: 'sandbox'},
      {url: 'https://api.spryngpayments.com', description: 'production'},
      {url: 'http://127.0.0.1:4010', description: 'the paytx emulator'},
    ],
    security: [{apiKey: []}],
    paths: paths(),
    webhooks: {
      transactionUpdate: {
        post: {
          summary: 'A transaction changed status: POSTed to its webhook_transaction_update (or its payment profile’s)',
          description: 'No signature; protect the address with a secret token. The same status may come more than once: de-duplicate by (transaction id, status), and re-fetch the transaction rather than trust the body.',
          requestBody: {required: true, content: jsonContent('TransactionWebhook')},
          responses: {'2XX': {description: 'Received; anything else is retried'}},
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        apiKey: {type: 'apiKey', in: 'header', name: DEFAULT_API_KEY_HEADER, description: 'The API key (a profile may name another header)'},
        proxyKey: {type: 'apiKey', in: 'header', name: PROXY_KEY_HEADER, description: 'The card proxy key'},
      },
    },
  }
}

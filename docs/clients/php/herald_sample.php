<?php
// Herald from plain PHP with the curl extension: sends a batch of SMS, sends a cascade, reads a message's status
// and verifies a callback's signature. See README.md for the environment it reads.

declare(strict_types=1);

final class HeraldError extends RuntimeException
{
    /** A request Herald refused: the HTTP status and Herald's error body {"error": {"code", "msg"}}. */
    public function __construct(public readonly int $status, public readonly ?int $herald, string $msg)
    {
        parent::__construct("$status $herald $msg");
    }
}

/** A request that got no answer (connection refused or reset, or no answer within the timeout). */
final class HeraldUnreachable extends RuntimeException
{
}

final class Herald
{
    /** The spec's recommended client timeout for sending: at least 70 seconds. */
    private const TIMEOUT_S = 70;
    private const ATTEMPTS = 3;

    public function __construct(private readonly string $url, private readonly string $token)
    {
    }

    /**
     * One call of Herald's API. Only a GET or a request with an Idempotency-Key is tried again (on no answer, 5xx or
     * 429, never sooner than Retry-After): Herald answers a repeated key with the first answer and stores nothing
     * twice. A POST without a key is sent once.
     */
    public function call(string $method, string $path, mixed $body = null, ?string $idempotencyKey = null): mixed
    {
        // Basic with the whole token: a token is already base64("<keyId>:<secret>").
        $headers = ["Authorization: Basic {$this->token}", 'Accept: application/json'];
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
        }
        if ($idempotencyKey !== null) {
            $headers[] = "Idempotency-Key: $idempotencyKey";
        }
        $attempts = ($method === 'GET' || $idempotencyKey !== null) ? self::ATTEMPTS : 1;
        for ($attempt = 1; ; $attempt++) {
            $retryAfter = 0;
            $curl = curl_init(rtrim($this->url, '/') . $path);
            curl_setopt_array($curl, [
                CURLOPT_CUSTOMREQUEST => $method,
                CURLOPT_HTTPHEADER => $headers,
                CURLOPT_RETURNTRANSFER => true,
                CURLOPT_TIMEOUT => self::TIMEOUT_S,
                CURLOPT_HEADERFUNCTION => function ($curl, string $line) use (&$retryAfter): int {
                    if (preg_match('/^retry-after:\s*(\d+)/i', $line, $m)) {
                        $retryAfter = (int) $m[1];
                    }
                    return strlen($line);
                },
            ]);
            if ($body !== null) {
                curl_setopt($curl, CURLOPT_POSTFIELDS, json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE));
            }
            $raw = curl_exec($curl);
            $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
            $failure = curl_error($curl);
            curl_close($curl);
            if ($raw === false) {
                if ($attempt >= $attempts) {
                    throw new HeraldUnreachable($failure);
                }
                sleep(2 ** ($attempt - 1));
                continue;
            }
            $answer = $raw === '' ? null : json_decode($raw, true);
            if ($status < 400) {
                return $answer;
            }
            if ($attempt >= $attempts || !($status >= 500 || $status === 429)) {
                $error = is_array($answer) ? ($answer['error'] ?? []) : [];
                throw new HeraldError($status, $error['code'] ?? null, $error['msg'] ?? "HTTP $status");
            }
            sleep(max($retryAfter, 2 ** ($attempt - 1)));
        }
    }
}

/**
 * Whether a callback is Herald's: X-Herald-Signature is t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw
 * body)>, no older than $toleranceS. $rawBody is the body as received (file_get_contents('php://input')).
 */
function verifySignature(string $secret, string $rawBody, string $header, ?int $now = null, int $toleranceS = 300): bool
{
    $parts = [];
    foreach (explode(',', $header) as $part) {
        [$name, $value] = array_pad(explode('=', $part, 2), 2, '');
        $parts[trim($name)] = trim($value);
    }
    if (!isset($parts['t'], $parts['v1']) || !ctype_digit($parts['t'])) {
        return false;
    }
    if (abs(($now ?? time()) - (int) $parts['t']) > $toleranceS) {
        return false;
    }
    $expected = hash_hmac('sha256', $parts['t'] . '.' . $rawBody, $secret);
    return hash_equals($expected, strtolower($parts['v1']));
}

function uuid4(): string
{
    $bytes = random_bytes(16);
    $bytes[6] = chr(ord($bytes[6]) & 0x0f | 0x40);
    $bytes[8] = chr(ord($bytes[8]) & 0x3f | 0x80);
    return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
}

function main(): int
{
    $url = getenv('HERALD_URL');
    $token = getenv('HERALD_TOKEN');
    if (!$url || !$token) {
        fwrite(STDERR, "Set HERALD_URL (https://herald.example.com) and HERALD_TOKEN (an API token, TOKEN_1)\n");
        return 64;
    }
    $herald = new Herald($url, $token);
    $sender = getenv('HERALD_SENDER') ?: 'Herald';
    $destination = getenv('HERALD_DESTINATION') ?: '79161234567';
    $callbackUrl = getenv('HERALD_CALLBACK_URL') ?: null;
    $callback = $callbackUrl ? ['callbackUrl' => $callbackUrl, 'callbackEvents' => ['sent', 'delivered']] : [];

    // 1. A batch of SMS (1 to 1000 messages in one request), with an Idempotency-Key so that it can be retried.
    $batch = [];
    foreach (['Your code: 4321', 'Your order 1024 has shipped'] as $text) {
        $batch[] = ['channelType' => 'SMS', 'senderName' => $sender, 'destination' => $destination, 'content' => $text]
            + $callback;
    }
    $sent = $herald->call('POST', '/api/v1/message', $batch, uuid4());
    $uuids = [];
    foreach ($sent['items'] as $item) {
        if (isset($item['messageUuid'])) {
            $uuids[] = $item['messageUuid'];
        } else { // refused inside an accepted batch: errors is true
            echo "refused: {$item['code']} " . ($item['msg'] ?? '') . "\n";
        }
    }
    echo 'batch: ' . implode(' ', $uuids) . "\n";

    // 2. A cascade: VK first, SMS when VK does not deliver.
    $cascade = [[
        'destination' => $destination,
        'cascade' => [
            ['channelType' => 'VK', 'senderName' => 'club1', 'content' => 'Your code: 4711', 'condition' => 'not_delivered'],
            ['channelType' => 'SMS', 'senderName' => $sender, 'content' => 'Your code: 4711'],
        ],
    ] + $callback];
    $root = $herald->call('POST', '/api/v1/message/cascade', $cascade, uuid4())['items'][0];
    echo 'cascade: ' . ($root['messageUuid'] ?? "refused: {$root['code']} " . ($root['msg'] ?? '')) . "\n";

    // 3. A message's status.
    if ($uuids) {
        $message = $herald->call('GET', '/api/v1/message/' . rawurlencode($uuids[0]));
        echo "status {$message['messageUuid']}: {$message['status']}\n";
    }

    // 4. A callback's signature, as a receiver checks each POST before trusting it.
    $secret = getenv('HERALD_CALLBACK_SECRET');
    $bodyFile = getenv('HERALD_CALLBACK_BODY_FILE');
    $signature = getenv('HERALD_CALLBACK_SIGNATURE');
    if (!$secret || !$bodyFile || !$signature) {
        echo "callback signature: skipped (HERALD_CALLBACK_SECRET, HERALD_CALLBACK_BODY_FILE, HERALD_CALLBACK_SIGNATURE)\n";
        return 0;
    }
    $rawBody = file_get_contents($bodyFile);
    $valid = verifySignature($secret, $rawBody, $signature);
    echo 'callback signature: ' . ($valid ? 'valid' : 'INVALID') . "\n";
    foreach ($valid ? json_decode($rawBody, true) : [] as $event) {
        echo "callback event: {$event['message_uuid']} {$event['callback_event']} " . ($event['status'] ?? '') . "\n";
    }
    return $valid ? 0 : 1;
}

try {
    exit(main());
} catch (HeraldError $error) {
    fwrite(STDERR, "Herald refused: {$error->getMessage()}\n");
    exit(2);
} catch (HeraldUnreachable $error) {
    fwrite(STDERR, "No answer from Herald: {$error->getMessage()}\n");
    exit(3);
}

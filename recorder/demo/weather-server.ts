#!/usr/bin/env node
/**
 * The server `npm start` tells its story with (official v2 SDK, stdio). Two builds:
 *   1.0.0  `get_forecast` answers { city, tempC, conditions }; it also prints a debug line on
 *          stdout, the classic stdio bug that a host may choke on (the live validator flags it).
 *   2.0.0  the "next release": the debug line is gone, but `tempC` was renamed `temperature`
 *          and `get_forecast` now requires `units`: what `replay` must call breaking.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const build = process.argv[2] === '2.0.0' ? '2.0.0' : '1.0.0';
const FORECASTS: Record<string, { tempC: number; conditions: string }> = {
  Paris: { tempC: 18, conditions: 'light rain' },
  Lisbon: { tempC: 24, conditions: 'sunny' },
};

function createWeatherServer(): McpServer {
  const server = new McpServer({ name: 'demo-weather', version: build }, { capabilities: { tools: {} } });
  const forecast = (city: string) => FORECASTS[city] ?? { tempC: 15, conditions: 'cloudy' };
  if (build === '1.0.0') {
    server.registerTool(
      'get_forecast',
      {
        description: "Today's forecast for a city",
        inputSchema: z.object({ city: z.string() }),
        outputSchema: z.object({ city: z.string(), tempC: z.number(), conditions: z.string() }),
      },
      async ({ city }) => {
        // The seeded bug: a debug print on stdout, where only protocol messages may go.
        process.stdout.write(`debug: looking up ${city}\n`);
        const f = forecast(city);
        const answer = { city, ...f };
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      },
    );
  } else {
    server.registerTool(
      'get_forecast',
      {
        description: "Today's forecast for a city",
        inputSchema: z.object({ city: z.string(), units: z.enum(['C', 'F']) }),
        outputSchema: z.object({ city: z.string(), temperature: z.number(), conditions: z.string() }),
      },
      async ({ city, units }) => {
        const f = forecast(city);
        const temperature = units === 'F' ? Math.round((f.tempC * 9) / 5 + 32) : f.tempC;
        const answer = { city, temperature, conditions: f.conditions };
        return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      },
    );
  }
  return server;
}

serveStdio(() => createWeatherServer());

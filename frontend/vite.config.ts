/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The backend serves the built bundle on its own origin; in development Vite proxies /api to it.
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { "/api": process.env.ROOTLINE_API ?? "http://127.0.0.1:8000" },
  },
  build: {
    outDir: "dist",
    sourcemap: true,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});

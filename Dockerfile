# The central policy server: `docker build -t hookgate . && docker run -p 8080:8080 hookgate`
# The database comes from HOOKGATE_DB_URL (default: SQLite in the container's state volume).
FROM python:3.11-slim

RUN useradd --create-home --uid 10001 hookgate
WORKDIR /app
COPY pyproject.toml README.md ./
COPY service ./service
COPY grammar ./grammar
COPY policies ./policies
RUN pip install --no-cache-dir '.[server]'

USER hookgate
ENV HOOKGATE_HOME=/home/hookgate/data
VOLUME ["/home/hookgate/data"]
EXPOSE 8080
CMD ["hookgate", "serve", "--host", "0.0.0.0", "--port", "8080"]

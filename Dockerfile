# The newsdesk image for compose.yaml: one image, the command picks the role (worker, beat, serve).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir .
ENV NEWSDESK_DATA_DIR=/data
VOLUME /data
ENTRYPOINT ["newsdesk"]
CMD ["--help"]

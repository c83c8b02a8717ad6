# syntax=docker/dockerfile:1
# The Kaluki scoring and adjudication service (docs/deploy.md).
#
#   docker build -t kaluki-service .
#   docker run -p 8000:8000 -e REDIS_URL=redis://redis:6379/0 kaluki-service
#
# Two stages: the builder installs the dependencies named in pyproject.toml and the
# service into a venv; the final stage copies only that venv and the gunicorn config
# onto the same slim base, and runs as an unprivileged user. tests/deploy/test_image.py
# runs the builder's RUN steps and the CMD below into a fresh venv (the development
# machine has no Docker daemon), so keep every install step a plain shell command.

FROM python:3.11.11-slim-bookworm AS builder
ENV VIRTUAL_ENV=/opt/venv \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv "$VIRTUAL_ENV"
# The dependencies first, read from pyproject.toml: this layer is rebuilt only when
# pyproject.toml changes, not on every change to the code.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
 && "$VIRTUAL_ENV/bin/pip" install -r requirements.txt
COPY service ./service
RUN "$VIRTUAL_ENV/bin/pip" install --no-deps . \
 && "$VIRTUAL_ENV/bin/pip" uninstall -y pip setuptools

FROM python:3.11.11-slim-bookworm
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PORT=8000 \
    KALUKI_DATA_DIR=/data
# A fixed numeric uid/gid, so Kubernetes' runAsNonRoot can check it; /data is the
# embedded Redis's directory when no REDIS_URL is given (a volume).
RUN groupadd --system --gid 10001 kaluki \
 && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin kaluki \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
COPY deploy/gunicorn.conf.py deploy/gunicorn.conf.py
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000
# slim has no curl: Python's urllib (a non-2xx answer or no answer raises, exit 1)
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8000') + '/healthz', timeout=2)"
CMD ["gunicorn", "-c", "deploy/gunicorn.conf.py", "service.app:create_app()"]
